from django.db import models


class Tenant(models.Model):
    slug = models.SlugField(unique=True)

    def __str__(self):
        return self.slug


class Invoice(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="invoices")
    number = models.CharField(max_length=20)

    def __str__(self):
        return self.number
