"""The call log: its writer, its daily summary, and the admin's overview of it."""
