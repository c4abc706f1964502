"""The default ranker, and a site's own (SEARCH_BACKEND): docs/tools.md#ranking."""

import pytest
from django.core import checks

from mcp_tools.checks import check_discovery_names, check_settings
from mcp_tools.discovery.ranking import (
    Entry,
    LexicalBackend,
    acronyms,
    heads,
    intent,
    root,
    subject,
    with_compounds,
    words,
)
from mcp_tools.discovery.tools import CALL_TOOL, SEARCH_TOOLS

ENTRIES = [
    Entry("device_list", "List devices", "Retrieve a list of device objects.", action="list"),
    Entry("device_create", "Create device", "Create a device.", action="create"),
    Entry("device_destroy", "Delete device", "Delete a device.", action="destroy"),
    Entry("interface_list", "List interfaces", "Retrieve a list of interfaces.", action="list"),
    Entry("ipaddress_list", "List IP addresses", "Retrieve a list of IP addresses.", "list"),
    Entry("virtualmachine_list", "List virtual machines", "The VMs of a cluster.", action="list"),
    Entry("cable_destroy", "Delete cable", "Delete a cable.", action="destroy"),
    Entry("secret_list", "List secrets", "Secrets, with their provider.", action="list"),
]


def test_words_split_fold_plurals_and_join_neighbours():
    assert words("ipAddress_list of Devices, policies and addresses") == [
        "ip",
        "address",
        "list",
        "device",
        "policy",
        "address",
    ]
    assert words("VMs, IPs and OSes; statuses and buses") == ["vm", "ip", "os", "status", "bus"]
    assert with_compounds(["ip", "address"]) == ["ip", "address", "ipaddress"]
    assert acronyms(["virtual", "device", "context"]) == ["vd", "dc", "vdc"]


def test_the_action_a_request_names_orders_the_tools_of_its_model():
    backend = LexicalBackend(ENTRIES)
    assert backend.search("add a new device", None, 1) == ["device_create"]
    assert backend.search("remove the device ams1-edge-01", None, 1) == ["device_destroy"]
    assert backend.search("which devices are in ams1", None, 1) == ["device_list"]
    assert backend.search("show the IP addresses", None, 1) == ["ipaddress_list"]
    assert backend.search("list the VMs", None, 1) == ["virtualmachine_list"]
    # A request of values only matches no tool; action words only order what others match.
    assert backend.search("10.0.0.1 /24 R3", None, 5) == []
    assert backend.search("show which", None, 5) == []


def test_the_tool_of_the_model_a_request_names_whole_comes_before_its_neighbours():
    backend = LexicalBackend(
        [
            Entry("ipaddress_list", "List IP addresses", "Retrieve a list of IP addresses."),
            Entry("ipaddressrange_list", "List IP address ranges", "IP ranges.", action="list"),
            Entry("namespace_list", "List namespaces", "IP namespaces.", action="list"),
            Entry("vminterface_list", "List VM interfaces", "VM interfaces.", action="list"),
            Entry("virtualmachine_list", "List virtual machines", "VMs.", action="list"),
        ]
    )
    assert backend.search("list the IP namespaces", None, 1) == ["namespace_list"]
    assert backend.search("which VM is down", None, 1) == ["virtualmachine_list"]
    assert Entry("rack_elevation", "Rack: elevation").model() == ["rack"]
    assert Entry("x_partial_update", "Partially update IP address").model() == ["ip", "address"]


def test_the_words_after_a_requests_subject_are_its_filters_not_its_model():
    assert subject("list the VMs on cluster c1") == (["list", "vm"], ["cluster", "c1"])
    assert subject("the details of subnet s1") == (["detail", "subnet", "s1"], [])
    backend = LexicalBackend(
        [
            *ENTRIES[:5],
            Entry("cluster_list", "List clusters", "A list of clusters.", action="list"),
            Entry("virtualmachine_list", "List virtual machines", "", {"cluster": ""}, "", "list"),
        ]
    )
    assert backend.search("list the VMs on cluster c1", None, 1) == ["virtualmachine_list"]
    # "list" says what to do, not to what: it matches every list tool's name.
    assert backend.search("list clusters", None, 1) == ["cluster_list"]


def test_the_head_of_a_phrase_is_its_last_word_and_names_the_model():
    assert heads("list user groups") == {"group"}
    assert heads("what cable kinds are there") == {"kind", "type"}  # a synonym's too
    assert heads("show the VMs on cluster c1") == {"vm"}
    backend = LexicalBackend(
        [
            Entry(
                "user_list", "List users", "Retrieve a list of users.", {"groups": ""}, "", "list"
            ),
            Entry(
                "group_list", "List groups", "Retrieve a list of groups.", {"users": ""}, "", "list"
            ),
        ]
    )
    assert backend.search("list user groups", None, 1) == ["group_list"]
    assert backend.search("list group users", None, 1) == ["user_list"]


def test_a_later_verb_that_writes_is_a_noun_and_new_is_an_adjective():
    backend = LexicalBackend(
        [
            Entry("prefix_list", "List prefixes", "Retrieve a list of prefixes.", action="list"),
            Entry("objectchange_list", "List object changes", "Changes.", action="list"),
            Entry("prefix_update", "Update prefix", "Replace a prefix.", action="update"),
        ]
    )
    assert intent("show that change to prefix p1") == {"list": 1.0, "retrieve": 0.5}
    assert backend.search("show that change to prefix p1", None, 1) == ["objectchange_list"]
    assert intent("a new box booted: which device is it") == {"list": 1.0, "retrieve": 0.5}
    assert intent("a new device") == {"create": 1.0}


def test_the_first_verb_of_a_request_says_what_it_wants_done_unless_it_asks():
    assert intent("add Jane to the contact list") == {"create": 1.0}
    assert intent("remove it, then list the rest") == {"destroy": 1.0}
    assert intent("what would the job change") == {"list": 1.0, "retrieve": 0.5}
    assert intent("the details of prefix 10.0.0.0/8") == {"list": 0.5, "retrieve": 1.0}
    assert intent("show the change to prefix p1") == {"list": 1.0, "retrieve": 0.5}
    assert intent("set up ACME as a new tenant") == {"create": 1.0}
    assert intent("revoke my old token") == {"destroy": 1.0}
    assert intent("bundle these two ports") == {"create": 0.5, "update": 0.5, "partial_update": 0.5}
    backend = LexicalBackend(
        [
            Entry("contact_list", "List contacts", "Contacts.", action="list"),
            Entry("contact_create", "Create contact", "Create a contact.", action="create"),
            Entry("job_update", "Update job", "Replace a job.", action="update"),
            Entry("job_list", "List jobs", "Jobs.", action="list"),
            Entry("job_run", "Job: run", "Run a job.", read_only=False),
        ]
    )
    assert backend.search("add Jane Doe to the contact list", None, 1) == ["contact_create"]
    assert backend.search("what would the job change", None, 1) == ["job_list"]
    # A tool of no standard action reads or writes as its readOnlyHint says.
    backend = LexicalBackend(
        [
            Entry("job_list", "List jobs", "Jobs.", action="list"),
            Entry("job_create", "Create job", "Create a job.", action="create"),
            Entry("job_run", "Job: run", "Run a job.", read_only=False),
            Entry("job_results", "Job: results", "Results of a job.", read_only=True),
        ]
    )
    assert backend.search("make the job run", None, 2) == ["job_run", "job_create"]
    assert backend.search("which jobs have results", None, 2) == ["job_results", "job_list"]
    assert Entry.of_definition({"name": "job_run", "annotations": {"readOnlyHint": False}}) == (
        Entry("job_run", read_only=False)
    )


def test_a_word_meets_its_derivations_and_a_few_synonyms_of_what_tools_do():
    assert {root(word) for word in ["reservation", "reserved", "reserve", "reservations"]} == {
        "reserv"
    }
    assert root("inventoried") == root("inventory") == "inventor"
    assert root("associated") == root("association")
    assert root("customers") == "customer"  # not custom
    backend = LexicalBackend(
        [
            Entry("rack_list", "List racks", "Retrieve a list of racks.", action="list"),
            Entry("rackreservation_list", "List rack reservations", "", action="list"),
            Entry("ipaddress_list", "List IP addresses", "A list of IP addresses.", action="list"),
            Entry("prefix_available_ips_get", "IP address: available ips", "", read_only=True),
            Entry("query_list", "List queries", "Saved queries.", action="list"),
            Entry("query_run", "Query: run", "Run a saved query.", read_only=False),
        ]
    )
    assert backend.search("which slots are booked", None, 1) == ["rackreservation_list"]
    assert backend.search("what IP addresses are free in p1", None, 1) == [
        "prefix_available_ips_get"
    ]
    assert backend.search("execute the saved query q1", None, 1) == ["query_run"]
    assert intent("follow the cable from port p1") == {"list": 1.0, "retrieve": 0.5}


def test_a_tool_of_its_own_action_comes_after_the_standard_ones_unless_that_is_asked():
    backend = LexicalBackend(
        [
            Entry("circuit_list", "List circuits", "Retrieve a list of circuits.", action="list"),
            Entry("circuit_notes_get", "Circuit: notes", "Notes of a circuit.", read_only=True),
            Entry("circuit_trace", "Circuit: trace", "Trace a circuit.", read_only=True),
            *ENTRIES,
        ]
    )
    assert backend.search("which circuits are there", None, 1) == ["circuit_list"]
    assert backend.search("show the notes of circuit c1", None, 1) == ["circuit_notes_get"]
    assert backend.search("trace circuit c1", None, 1) == ["circuit_trace"]


def test_a_tool_outside_among_neither_appears_nor_moves_another():
    visible = {"device_list", "device_create", "interface_list", "cable_destroy"}
    among = LexicalBackend(ENTRIES)
    alone = LexicalBackend([entry for entry in ENTRIES if entry.name in visible])
    for query in ["delete the cable", "devices", "list interfaces and devices", "secrets"]:
        assert among.search(query, visible, 5) == alone.search(query, None, 5)
    assert among.search("secrets", visible, 5) == []
    # Nor does it through what the ranker reads of a request: models, heads, actions, roots.
    more = [
        *ENTRIES,
        Entry("device_notes_get", "Device: notes", "Notes of a device.", read_only=True),
        Entry("devicereservation_list", "List device reservations", "", action="list"),
        Entry("devicegroup_list", "List device groups", "Device groups.", action="list"),
    ]
    visible |= {"device_notes_get", "devicegroup_list"}
    among = LexicalBackend(more)
    alone = LexicalBackend([entry for entry in more if entry.name in visible])
    for query in ["show the notes of device d1", "which device groups", "who booked devices"]:
        assert among.search(query, visible, 5) == alone.search(query, None, 5)


def test_limit_bounds_the_answer():
    backend = LexicalBackend(ENTRIES)
    assert len(backend.search("list", None, 2)) <= 2
    assert backend.search("device", None, 0) == []


class OnlyWrong:
    """A ranker that answers names it was not asked about."""

    def __init__(self, entries):
        self.names = [entry.name for entry in entries]

    def search(self, query, among, limit):
        return ["todo_stats", "no_such_tool", *sorted(among)][: limit + 3]


@pytest.mark.django_db
def test_the_endpoint_keeps_only_what_the_caller_may_call_of_a_sites_ranker(settings, mcp):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "DISCOVERY": "always",
        "SEARCH_BACKEND": "tests.discovery.test_ranking.OnlyWrong",
    }
    found = mcp.call_tool(SEARCH_TOOLS, {"query": "anything", "limit": 2})["structuredContent"]
    names = [tool["name"] for tool in found["tools"]]
    assert len(names) == 2 and "todo_stats" not in names and "no_such_tool" not in names


def test_a_search_backend_that_is_no_ranker_is_an_error(settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "SEARCH_BACKEND": "tests.nowhere.Ranker"}
    (message,) = [m for m in check_settings() if m.id == "mcp_tools.E055"]
    assert message.msg.startswith(
        "MCP_TOOLS['SEARCH_BACKEND'] is 'tests.nowhere.Ranker', which is not a ranker: it "
        "can't be imported"
    )
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "sometimes"}
    assert "mcp_tools.E051" in [m.id for m in check_settings()]


@pytest.mark.urls("tests.discovery.clashing_urls")
def test_a_tool_named_as_a_discovery_tool_is_an_error_where_discovery_can_turn_on(settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "auto"}
    (message,) = check_discovery_names()
    assert isinstance(message, checks.Error) and message.id == "mcp_tools.E100"
    assert message.msg == (
        "Tool 'search_tools' has a name discovery mode's own tools take (search_tools and "
        "call_tool)."
    )
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "never"}
    assert check_discovery_names() == []
    assert CALL_TOOL == "call_tool"


def test_mcp_lint_scores_the_discovery_tools_as_a_model_reads_them(settings):
    import io

    from django.core.management import call_command

    from mcp_tools.discovery.tools import discovery_definitions
    from mcp_tools.tools.lint import lint_tool

    for definition in discovery_definitions("2025-11-25", tasks=True):
        report = lint_tool(None, definition)
        assert [s.code for s in report.smells if s.level != "info"] == [], report.smells
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "DISCOVERY": "auto"}
    out = io.StringIO()
    call_command("mcp_lint", stdout=out)
    assert "search_tools: " in out.getvalue() and "call_tool: " in out.getvalue()
