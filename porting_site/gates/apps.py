from django.apps import AppConfig


class GatesConfig(AppConfig):
    name = "porting_site.gates"
    label = "gates"
    verbose_name = "Quality gate"
