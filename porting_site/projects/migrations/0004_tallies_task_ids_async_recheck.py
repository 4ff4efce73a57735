from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("projects", "0003_run_converted_archive"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="tallies",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="stage",
            name="task_ids",
            field=models.JSONField(blank=True, default=list),
        ),
        # Re-checks stored before this migration were done synchronously: mark them done.
        migrations.AddField(
            model_name="kbrecheck",
            name="status",
            field=models.CharField(
                choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                default="done", max_length=10),
        ),
        migrations.AlterField(
            model_name="kbrecheck",
            name="status",
            field=models.CharField(
                choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                default="queued", max_length=10),
        ),
        migrations.AddField(
            model_name="kbrecheck",
            name="error",
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name="kbrecheck",
            name="finished_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
