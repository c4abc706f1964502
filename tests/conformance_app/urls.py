"""The conformance fixture tools, mounted at /c/ (tests) and by the conformance server."""

from django.urls import path

from . import views

urlpatterns = [
    path("simple-text/", views.simple_text, name="test-simple-text"),
    path("image/", views.image_content, name="test-image-content"),
    path("audio/", views.audio_content, name="test-audio-content"),
    path("embedded-resource/", views.embedded_resource, name="test-embedded-resource"),
    path("mixed/", views.multiple_content_types, name="test-multiple-content-types"),
    path("error/", views.error_handling, name="test-error-handling"),
    path("progress/", views.tool_with_progress, name="test-tool-with-progress"),
    path("logging/", views.tool_with_logging, name="test-tool-with-logging"),
    path("logging-tool/", views.logging_tool, name="test-logging-tool"),
    path("json-schema/", views.json_schema_2020_12, name="json-schema-2020-12-tool"),
    path("input/elicitation/", views.input_required_elicitation, name="ir-elicitation"),
    path("input/sampling/", views.input_required_sampling, name="ir-sampling"),
    path("input/roots/", views.input_required_list_roots, name="ir-roots"),
    path("input/state/", views.input_required_request_state, name="ir-state"),
    path("input/multiple/", views.input_required_multiple_inputs, name="ir-multiple"),
    path("input/rounds/", views.input_required_multi_round, name="ir-rounds"),
    path("input/tampered/", views.input_required_tampered_state, name="ir-tampered"),
    path("input/capabilities/", views.input_required_capabilities, name="ir-capabilities"),
    path("input/missing-capability/", views.missing_capability, name="missing-capability"),
    path("input/streaming/", views.streaming_elicitation, name="streaming-elicitation"),
    path("ask/sampling/", views.handshake_sampling, name="test-sampling"),
    path("ask/elicitation/", views.handshake_elicitation, name="test-elicitation"),
    path("ask/defaults/", views.handshake_elicitation_defaults, name="test-elicitation-defaults"),
    path("ask/enums/", views.handshake_elicitation_enums, name="test-elicitation-enums"),
    path("headers/", views.argument_headers, name="test-argument-headers"),
    path("trigger/tools/", views.trigger_tool_change, name="trigger-tool-change"),
    path("trigger/prompts/", views.trigger_prompt_change, name="trigger-prompt-change"),
    path("probe/gate/", views.probe_gate, name="probe-gate"),
    path("probe/loop/", views.probe_loop, name="probe-loop"),
    path("probe/flood/", views.probe_flood, name="probe-flood"),
    path("probe/workers/", views.probe_workers, name="probe-workers"),
]
