from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("projects", "0007_parity_torch_fail")]

    operations = [
        migrations.AddField(model_name="run", name="disk_bytes", field=models.BigIntegerField(default=0)),
    ]
