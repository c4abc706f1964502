"""The watchdog: one thread runs each armed action at its time, unless it was cancelled."""

import os
import threading
import time

from mcp_tools.endpoint import watchdog as watchdog_module
from mcp_tools.endpoint.watchdog import MAX_CANCELLED, Watchdog


def wait_for(condition, seconds=5.0):
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.01)
    return condition()


def test_each_action_runs_once_at_its_time_in_the_order_of_their_times():
    dog = Watchdog("test-watchdog")
    ran = []
    started = time.monotonic()
    dog.arm(0.3, lambda: ran.append(("late", time.monotonic() - started)))
    dog.arm(0.1, lambda: ran.append(("soon", time.monotonic() - started)))  # wakes the thread
    assert wait_for(lambda: len(ran) == 2)
    assert [name for name, _ in ran] == ["soon", "late"]
    assert ran[0][1] >= 0.1 and ran[1][1] >= 0.3
    time.sleep(0.1)
    assert len(ran) == 2 and dog.pending == 0


def test_a_cancelled_action_never_runs():
    dog = Watchdog("test-watchdog")
    ran = []
    alarm = dog.arm(0.1, lambda: ran.append("cancelled"))
    dog.arm(0.2, lambda: ran.append("kept"))
    alarm.cancel()
    alarm.cancel()  # twice: no harm
    assert wait_for(lambda: ran == ["kept"])
    time.sleep(0.1)
    assert ran == ["kept"]


def test_cancelled_alarms_do_not_pile_up_until_their_time():
    # A stream's alarm is due CALL_TIMEOUT + grace after it starts, and nearly every stream
    # ends well before: thousands of calls must not leave thousands of entries behind.
    dog = Watchdog("test-watchdog")
    for _ in range(5000):
        dog.arm(3600, lambda: None).cancel()
    assert dog.pending <= 2 * MAX_CANCELLED + 2


def test_one_thread_serves_every_alarm_and_a_failing_action_stops_none(caplog):
    dog = Watchdog("test-watchdog-one")
    ran = []

    def fail():
        raise RuntimeError("boom")

    dog.arm(0.05, fail)
    for index in range(20):
        dog.arm(0.1, lambda index=index: ran.append(index))
    assert wait_for(lambda: len(ran) == 20)
    assert sorted(ran) == list(range(20))
    threads = [t for t in threading.enumerate() if t.name == "test-watchdog-one"]
    assert len(threads) == 1 and threads[0].daemon
    assert "A watchdog action failed" in caplog.text


def test_the_process_watchdog_is_forgotten_in_a_forked_child():
    # A gunicorn worker forked from a master that armed an alarm has no watchdog thread:
    # its first alarm must start one, not wait for a thread that stayed in the parent.
    dog = watchdog_module.watchdog
    dog.arm(3600, lambda: None).cancel()
    assert dog._thread is not None
    pid = os.fork()
    if pid == 0:  # the child: exit at once, with what it found
        ran = []
        fresh = dog._thread is None and dog.pending == 0
        dog.arm(0.01, lambda: ran.append(1))
        deadline = time.monotonic() + 5
        while not ran and time.monotonic() < deadline:
            time.sleep(0.01)
        os._exit(0 if fresh and ran else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
