"""Small framework-free helpers used by the Django project."""
