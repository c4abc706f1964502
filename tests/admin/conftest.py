import pytest
from django.test import Client


@pytest.fixture
def admin_client(django_user_model):
    """A superuser's client (``.user``), for the admin's pages: a view's exception is
    reported through got_request_exception, not as the page's failure."""
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-pw")
    client = Client(raise_request_exception=False)
    client.force_login(root)
    client.user = root
    return client
