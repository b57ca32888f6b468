#!/usr/bin/python3
"""A private D-Bus session bus with a scripted org.freedesktop.Notifications server on it.

Usage: notification_server.py RECORD DIRECTORY [--no-server] [--capabilities a,b]

Starts `dbus-daemon` listening on unix:path=DIRECTORY/bus, prints the bus address on the
first line of stdout, and (unless --no-server) owns org.freedesktop.Notifications on it. Every
Notify call is appended to RECORD as one JSON line (time, app_name, replaces_id, app_icon, summary, body,
actions, hints, expire_timeout, id). Commands on stdin, one a line:
  action ID KEY      emit ActionInvoked(ID, KEY)
  close ID REASON    emit NotificationClosed(ID, REASON) (1 expired, 2 dismissed, 3 closed by call)
Each command is answered with `ok` on stdout once the signal is on the bus. EOF on stdin (the test
ended) stops the server and the bus.

The bus runs with its own config (DIRECTORY/bus.conf), not the stock `--session` one: that one reads
the system's service directories (and $XDG_DATA_DIRS/dbus-1/services), so where dunst, mako or
xfce4-notifyd is installed a Notify call would start the real daemon instead of finding no server.
This one names no service directory: nothing is ever activated on the test bus.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def plain(value):
    """D-Bus values as JSON-friendly Python values."""
    if isinstance(value, (dbus.String, str)):
        return str(value)
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64, int)):
        return int(value)
    if isinstance(value, (dbus.Double, float)):
        return float(value)
    if isinstance(value, (dbus.Array, list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(key): plain(item) for key, item in value.items()}
    return str(value)


class Notifications(dbus.service.Object):
    def __init__(self, bus, record, capabilities):
        super().__init__(bus, PATH)
        self.record = record
        self.capabilities = capabilities
        self.next_id = 0

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return self.capabilities

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.next_id += 1
        entry = {
            "id": self.next_id, "time": time.time(), "app_name": plain(app_name), "replaces_id": plain(replaces_id),
            "app_icon": plain(app_icon), "summary": plain(summary), "body": plain(body),
            "actions": plain(actions), "hints": plain(hints), "expire_timeout": plain(expire_timeout),
        }
        with open(self.record, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return dbus.UInt32(self.next_id)

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, notification_id):
        self.NotificationClosed(notification_id, dbus.UInt32(3))

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("datebook-test", "datebook", "1.0", "1.2")

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, notification_id, action_key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, notification_id, reason):
        pass


BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>{address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def die_with_parent():
    """The bus ends with this server, however it ends (prctl PR_SET_PDEATHSIG, SIGKILL)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def main():
    record, directory = sys.argv[1], sys.argv[2]
    options = sys.argv[3:]
    capabilities = ["body", "body-markup", "actions"]
    if "--capabilities" in options:
        capabilities = [c for c in options[options.index("--capabilities") + 1].split(",") if c]
    address = "unix:path=" + os.path.join(directory, "bus")
    config = os.path.join(directory, "bus.conf")
    with open(config, "w", encoding="utf-8") as out:
        out.write(BUS_CONFIG.format(address=address))
    daemon = subprocess.Popen(
        ["dbus-daemon", "--config-file=" + config, "--nofork", "--nopidfile", "--address=" + address, "--print-address"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
    printed = daemon.stdout.readline().decode().strip()
    if not printed:
        sys.exit("dbus-daemon did not start")

    def stop(*_):
        daemon.kill()  # SIGTERM may arrive blocked from the test process; the bus is disposable
        daemon.wait()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    server = None
    if "--no-server" not in options:
        name = dbus.service.BusName(NAME, bus, do_not_queue=True)
        server = Notifications(bus, record, capabilities)
        server.name = name
    loop = GLib.MainLoop()

    def command(source, _condition):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        words = line.split()
        if server is not None and len(words) == 3 and words[0] == "action":
            server.ActionInvoked(dbus.UInt32(int(words[1])), words[2])
        elif server is not None and len(words) == 3 and words[0] == "close":
            server.NotificationClosed(dbus.UInt32(int(words[1])), dbus.UInt32(int(words[2])))
        bus.flush()
        print("ok", flush=True)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    print(address, flush=True)
    loop.run()
    stop()


if __name__ == "__main__":
    main()
