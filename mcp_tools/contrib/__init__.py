"""Optional features, each a small app a project adds to ``INSTALLED_APPS`` when it wants it.

The core never imports them.
"""
