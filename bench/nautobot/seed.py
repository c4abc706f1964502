"""Seed the bench's Nautobot: a superuser, a limited user, and one device with its place.

Run by bench/nautobot.py inside ``nautobot-server shell``; idempotent (reused database).
Prints one JSON line: the two users' tokens and the seeded objects' names and ids.
"""

import json

from django.contrib.contenttypes.models import ContentType
from nautobot.dcim.models import Device, DeviceType, Interface, Location, LocationType, Manufacturer
from nautobot.extras.models import Role, Status
from nautobot.ipam.models import IPAddress, Namespace, Prefix
from nautobot.users.models import ObjectPermission, Token, User

# What the limited user may view: the models a network engineer's agent reads first.
LIMITED_VIEW = [
    ("dcim", "device"),
    ("dcim", "interface"),
    ("dcim", "location"),
    ("dcim", "devicetype"),
    ("dcim", "manufacturer"),
    ("ipam", "ipaddress"),
    ("ipam", "prefix"),
]


def user_with_token(username, **flags):
    user, _ = User.objects.get_or_create(username=username, defaults=flags)
    for name, value in flags.items():
        setattr(user, name, value)
    user.set_password(username + "-bench-password")
    user.save()
    Token.objects.filter(user=user).delete()
    return user, Token.objects.create(user=user).key


admin, admin_key = user_with_token("bench-admin", is_superuser=True, is_staff=True)
limited, limited_key = user_with_token("bench-limited")
permission, _ = ObjectPermission.objects.get_or_create(
    name="bench-limited-view", defaults={"actions": ["view"]}
)
permission.object_types.set(
    [ContentType.objects.get(app_label=app, model=model) for app, model in LIMITED_VIEW]
)
permission.users.set([limited])

active = Status.objects.get(name="Active")
device_type_ct = ContentType.objects.get_for_model(Device)
site_type, _ = LocationType.objects.get_or_create(name="Site")
site_type.content_types.add(device_type_ct, ContentType.objects.get_for_model(Prefix))
site, _ = Location.objects.get_or_create(
    name="ams1", defaults={"location_type": site_type, "status": active}
)
manufacturer, _ = Manufacturer.objects.get_or_create(name="Juniper")
device_type, _ = DeviceType.objects.get_or_create(manufacturer=manufacturer, model="MX204")
role, _ = Role.objects.get_or_create(name="edge-router")
role.content_types.add(device_type_ct)
device, _ = Device.objects.get_or_create(
    name="ams1-edge-01",
    defaults={"device_type": device_type, "role": role, "location": site, "status": active},
)
interface, _ = Interface.objects.get_or_create(
    device=device, name="et-0/0/0", defaults={"type": "100gbase-x-qsfp28", "status": active}
)
namespace = Namespace.objects.get(name="Global")
Prefix.objects.get_or_create(
    prefix="192.0.2.0/24", namespace=namespace, defaults={"status": active, "type": "network"}
)
address = IPAddress.objects.filter(host="192.0.2.1").first() or IPAddress.objects.create(
    address="192.0.2.1/24", namespace=namespace, status=active
)
if not interface.ip_addresses.filter(pk=address.pk).exists():
    interface.add_ip_addresses(address)

print(
    "SEED "
    + json.dumps(
        {
            "admin_token": admin_key,
            "limited_token": limited_key,
            "location": {"name": site.name, "id": str(site.pk)},
            "location_type": {"name": site_type.name, "id": str(site_type.pk)},
            "status": {"name": active.name, "id": str(active.pk)},
            "device": {"name": device.name, "id": str(device.pk)},
            "interface": {"name": interface.name, "id": str(interface.pk)},
            "ip_address": {"address": str(address.address), "id": str(address.pk)},
        }
    )
)
