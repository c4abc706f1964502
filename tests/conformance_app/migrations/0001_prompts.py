"""The conformance suite's prompts, written as staff would write them in the admin."""

from django.db import migrations

PROMPTS = [
    {
        "name": "test_simple_prompt",
        "description": "A simple prompt without arguments",
        "arguments": [],
        "messages": [{"role": "user", "text": "This is a simple prompt for testing."}],
    },
    {
        "name": "test_prompt_with_arguments",
        "description": "A prompt with two required arguments",
        "arguments": [
            {"name": "arg1", "description": "First test argument", "required": True,
             "choices": ["test", "testing", "value"]},
            {"name": "arg2", "description": "Second test argument", "required": True},
        ],
        "messages": [
            {"role": "user", "text": "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"}
        ],
    },
    {
        "name": "test_prompt_with_embedded_resource",
        "description": "A prompt that embeds a resource",
        "arguments": [
            {"name": "resourceUri", "description": "URI of the resource to embed",
             "required": True}
        ],
        "messages": [
            {
                "role": "user",
                "resource": {
                    "uri": "{resourceUri}",
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing.",
                },
            },
            {"role": "user", "text": "Please process the embedded resource above."},
        ],
    },
    {
        "name": "test_prompt_with_image",
        "description": "A prompt with an image of this site",
        "arguments": [],
        "messages": [
            {"role": "user", "image": "conformance/red-dot.png"},
            {"role": "user", "text": "Please analyze the image above."},
        ],
    },
]


def add_prompts(apps, schema_editor):
    Prompt = apps.get_model("mcp_tools", "Prompt")
    for fields in PROMPTS:
        Prompt.objects.create(**fields)


def remove_prompts(apps, schema_editor):
    Prompt = apps.get_model("mcp_tools", "Prompt")
    Prompt.objects.filter(name__in=[fields["name"] for fields in PROMPTS]).delete()


class Migration(migrations.Migration):
    dependencies = [("mcp_tools", "0017_prompt")]
    operations = [migrations.RunPython(add_prompts, remove_prompts)]
