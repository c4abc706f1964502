"""The tools as admins configured them, and who may see which."""
