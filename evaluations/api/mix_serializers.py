"""The workload mix of the step-1 profile in the API (catalog.engine.workload_mix): one entry's
documented bounds, and the list field that also reads it from a form or multipart body."""

from __future__ import annotations

import json

from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.utils import html

from catalog.engine.profile import WORKLOAD_TYPES
from catalog.engine.workload_mix import (
    GPU_TYPES_MAX,
    GPUS_PER_TASK_MAX,
    MEMORY_MAX_GB,
    TASKS_MAX,
    TENANT_MAX,
)


class MixEntrySerializer(serializers.Serializer):
    """One line of the workload mix (catalog.engine.workload_mix)."""

    tenant = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=TENANT_MAX,
        help_text="the tenant's number, from 1 to tenant_count; null spreads the tasks over all",
    )
    workload = serializers.ChoiceField(choices=list(WORKLOAD_TYPES))
    tasks = serializers.IntegerField(
        min_value=1, max_value=TASKS_MAX, help_text="how many (a proportion of the work)"
    )
    gpus = serializers.IntegerField(
        required=False,
        default=1,
        min_value=1,
        max_value=GPUS_PER_TASK_MAX,
        help_text="GPUs per task",
    )
    gpu_milli = serializers.IntegerField(
        required=False,
        default=1000,
        min_value=1,
        max_value=1000,
        help_text="thousandths of one GPU, under 1000 only with gpus 1",
    )
    memory_gb = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0.001,
        max_value=MEMORY_MAX_GB,
        help_text="GPU memory per task; null: its share of the GPU's memory",
    )
    gpu_types = serializers.ListField(
        child=serializers.CharField(max_length=80), required=False, max_length=GPU_TYPES_MAX,
        help_text="GPU models the task may run on (EcoMap's GPU facts); empty: any",
    )  # fmt: skip


class MixField(serializers.ListField):
    """The workload mix: a list of entries. A form or multipart body carries it as one part of
    JSON text (DRF would otherwise look for `workload_mix[0]tasks` parts, find none and take
    the list as empty, so a bad mix in a form would pass unread)."""

    def get_value(self, dictionary):
        if html.is_html_input(dictionary):
            return dictionary.get(self.field_name, empty)
        return super().get_value(dictionary)

    def to_internal_value(self, data):
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                self.fail("not_a_list", input_type="text")
        return super().to_internal_value(data)
