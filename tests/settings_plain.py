"""The test project as a project without drf-spectacular: no annotated app, DRF's schema class."""

from tests.settings import *  # noqa: F403
from tests.settings import INSTALLED_APPS, REST_FRAMEWORK

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "tests.spectacular_app"]
REST_FRAMEWORK = {
    key: value for key, value in REST_FRAMEWORK.items() if key != "DEFAULT_SCHEMA_CLASS"
}
