"""The status page: the project's own templates, rendered with Flask's environment."""

from flask import Flask, render_template

app = Flask(__name__)

COMPONENTS = {"api": "operational", "dashboard": "operational", "exports": "degraded"}


@app.get("/")
def index() -> str:
    return render_template("index.html", components=COMPONENTS)
