from django.apps import AppConfig


class TriageConfig(AppConfig):
    name = "porting_site.triage"
    label = "triage"
    verbose_name = "Triage"
