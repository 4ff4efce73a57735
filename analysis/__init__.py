"""The migration engine: scanning, rules, knowledge base, conversion, parity.

Plain Python. Nothing here imports Django, so every part runs from the command
line, from a Celery worker, or from a test without a server.
"""
