"""A custom URL converter: its regex becomes the path parameter's pattern."""


class YearConverter:
    regex = "[0-9]{4}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int | str) -> str:
        return f"{int(value):04d}"
