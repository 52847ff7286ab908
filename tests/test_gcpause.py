"""gc_paused: the cyclic collector is off inside, back on after, and never switched on by us
when it was off before."""

import gc
import threading

import pytest

from ecomap.gcpause import gc_paused


@pytest.fixture(autouse=True)
def collector_restored():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_inside_and_resumes_after():
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_resume_only_at_the_outermost_end():
    gc.enable()
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_resumes_after_an_exception():
    gc.enable()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_in_two_threads_resume_once_both_end():
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other():
        with gc_paused():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=other)
    with gc_paused():
        thread.start()
        inside.wait(5)
    assert not gc.isenabled()  # the other thread is still inside its pause
    release.set()
    thread.join(5)
    assert gc.isenabled()


def test_as_a_decorator():
    gc.enable()

    @gc_paused()
    def work():
        return gc.isenabled()

    assert work() is False
    assert gc.isenabled()
