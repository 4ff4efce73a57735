from django.contrib import admin

from .models import Project, Run


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "team", "target", "device", "created_at")


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "created_at", "finished_at")
    list_filter = ("status",)
