"""ImportJob.payload: jsonb → compressed JSON bytes. Queued jobs keep their payload."""

import zlib

import orjson
from django.db import migrations, models


def pack_queued(apps, schema_editor):
    ImportJob = apps.get_model("catalog", "ImportJob")
    for job in ImportJob.objects.filter(payload_json__isnull=False).only("id", "payload_json"):
        packed = zlib.compress(orjson.dumps(job.payload_json), 1)
        ImportJob.objects.filter(id=job.id).update(payload=packed)


def unpack_queued(apps, schema_editor):
    ImportJob = apps.get_model("catalog", "ImportJob")
    for job in ImportJob.objects.filter(payload__isnull=False).only("id", "payload"):
        document = orjson.loads(zlib.decompress(bytes(job.payload)))
        ImportJob.objects.filter(id=job.id).update(payload_json=document)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0004_matrix_snapshot"),
    ]

    operations = [
        migrations.RenameField("importjob", "payload", "payload_json"),
        migrations.AddField(
            model_name="importjob",
            name="payload",
            field=models.BinaryField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(pack_queued, unpack_queued, elidable=True),
        migrations.RemoveField(model_name="importjob", name="payload_json"),
    ]
