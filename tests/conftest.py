import pytest
from rest_framework.authtoken.models import Token


@pytest.fixture
def alice(django_user_model):
    user = django_user_model.objects.create_user("alice", password="alice-password")
    user.token = Token.objects.create(user=user).key
    return user


@pytest.fixture
def bob(django_user_model):
    user = django_user_model.objects.create_user("bob", password="bob-password")
    user.token = Token.objects.create(user=user).key
    return user
