"""Capacity simulations of an evaluation (issue 29 item 3): the job that sizes every recommended
stack's pools and replays the workload mix on them, its cached result, its page panel and API."""
