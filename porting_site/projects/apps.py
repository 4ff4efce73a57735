from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "porting_site.projects"
    label = "projects"
