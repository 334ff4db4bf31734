"""A plain WSGI application; the Procfile serves it with gunicorn on the public port.

Requests to /internal/ are meant to be blocked by path in front of the application."""


def application(environ, start_response):
    if environ.get("PATH_INFO", "").startswith("/internal/"):
        start_response("403 Forbidden", [("Content-Type", "text/plain")])
        return [b"forbidden\n"]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok\n"]
