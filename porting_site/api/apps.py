from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "porting_site.api"
    label = "api"
    verbose_name = "REST API"
