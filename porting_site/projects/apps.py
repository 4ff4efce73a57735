from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "porting_site.projects"
    label = "projects"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the parity sandbox check)
