"""The sharing app takes over the evaluations app's ShareLink and ShareAccess (issue 44): state only,
the tables keep their names (`db_table`); the content types' app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("sharelink", "shareaccess")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0021_notifications_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ShareLink',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('label', models.CharField(max_length=120, verbose_name='shared with')),
                        ('key_hash', models.CharField(editable=False, max_length=64, unique=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                        ('expires_at', models.DateTimeField(verbose_name='expires')),
                        ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='revoked')),
                        ('created_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='share_links', to='evaluations.evaluation')),
                        ('revoked_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'share link',
                        'verbose_name_plural': 'share links',
                        'db_table': 'evaluations_sharelink',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='ShareAccess',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('kind', models.CharField(choices=[('page', 'decision page'), ('pdf', 'PDF report'), ('adr', 'decision record (Markdown)')], max_length=4, verbose_name='opened')),
                        ('address', models.CharField(blank=True, max_length=45, verbose_name='address')),
                        ('user_agent', models.CharField(blank=True, max_length=200, verbose_name='browser')),
                        ('link', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='accesses', to='sharing.sharelink')),
                    ],
                    options={
                        'verbose_name': 'share link access',
                        'verbose_name_plural': 'share link accesses',
                        'db_table': 'evaluations_shareaccess',
                        'ordering': ['-at', '-id'],
                    },
                ),
                migrations.AddIndex(
                    model_name='sharelink',
                    index=models.Index(fields=['evaluation', '-created_at'], name='share_by_evaluation_idx'),
                ),
                migrations.AddIndex(
                    model_name='shareaccess',
                    index=models.Index(fields=['link', '-at'], name='share_access_by_link_idx'),
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="sharing"),
    ]
