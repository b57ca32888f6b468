#!/usr/bin/env bash
# Installs what datebook needs to build, test and benchmark, only where it is missing.
# Safe to run again; used by `make demo`, `make test` (with --test) and `make bench` (--bench).
set -euo pipefail

apt_packages=(
  libsqlite3-dev          # CSQLite: the store
  libcurl4-openssl-dev    # CLoader: HTTP and SMTP delivery (libcurl, opened at run time when something is sent)
  libical-dev             # CICal: iCalendar and RRULE
  libcmark-gfm-dev        # CCmark: Markdown → HTML
  libcmark-gfm-extensions-dev
  libmicrohttpd-dev       # CLoader: datebook serve (opened at run time by serve only)
  libpq-dev               # CLoader: the PostgreSQL store backend (libpq, opened at run time by it only)
  libxml2-dev             # CLoader: the CalDAV sync's XML reader (opened at run time by the sync only)
  tzdata                  # time zones for Foundation and libical
  python3                 # test servers (HTTP sink, SMTP)
  python3-venv            # the test Python's virtual environment (.build/venv)
  python3-aiosmtpd        # the real SMTP server the email tests deliver to
  openssl                 # self-signed certificates for the TLS tests
  dbus                    # the desktop tests' private session bus (dbus-daemon)
  libnotify-bin           # notify-send: what the desktop channel runs
  python3-dbus            # the desktop tests' scripted notification server
  python3-gi              # its GLib main loop
  pkg-config
)
if [ "${1:-}" = "--test" ]; then
  apt_packages+=(
    groff                 # the man page tests: groff -man -ww -z on datebook(1) and datebook-config(5)
    man-db                # man -l renders them
    bash-completion       # the completion tests run each real shell on its script
    zsh
    fish
    chromium              # the web pages in a real browser (headless: screenshots, --dump-dom)
    fonts-noto-color-emoji  # emoji in those screenshots
    postgresql            # the PostgreSQL store tests start their own server (initdb, pg_ctl)
  )
fi
if [ "${1:-}" = "--bench" ]; then
  apt_packages+=(
    nginx-light           # the fast local sink of the delivery benchmark; the static page beside datebook serve
    wrk                   # the load of the serve benchmark
    postgresql            # the PostgreSQL store benchmark
    calcurse              # the agenda's peer (bench/peers.py)
  )
fi

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The test Python: a virtual environment in .build/venv (TestPython in Tests/DatebookTestSupport
# runs it), made with Debian's python3 and its system site packages (python3-dbus, python3-gi and
# python3-aiosmtpd from apt stay importable), with the PyPI packages the tests need installed into
# it. Nothing is installed into the system's Python. Add a package to this list, and only here.
test_python_packages=(
  icalendar               # the iCalendar peer check (DatebookICalTests/PeerCheckTests), the feed check (ServeAPITests)
  recurring-ical-events   # the peer check's occurrence expansion
  radicale                # the CalDAV tests' server (Tests/DatebookTestSupport/Radicale.swift)
  caldav                  # the CalDAV tests' other device: reads back what the sync pushed (CalDAVOccurrenceTests)
  xandikos                # the second CalDAV server of the tests, beside Radicale (Tests/DatebookTestSupport/Xandikos.swift)
  slack-sdk               # Block Kit validation of the Slack payloads (DatebookRenderTests/SlackValidationTests)
  jsonschema              # the Teams payloads against the Adaptive Card schema (DatebookRenderTests/TeamsValidationTests)
)
if [ "${1:-}" = "--test" ]; then
  venv="$(cd "$(dirname "$0")/.." && pwd)/.build/venv"
  if [ ! -x "$venv/bin/python3" ]; then
    echo "setup: making the test Python in $venv" >&2
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  fi
  # The list installed last is kept in the venv: a package added to the list is installed on the next run.
  if [ "$(cat "$venv/datebook-packages" 2>/dev/null)" != "${test_python_packages[*]}" ]; then
    echo "setup: installing ${test_python_packages[*]} into $venv" >&2
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "${test_python_packages[@]}"
    echo "${test_python_packages[*]}" > "$venv/datebook-packages"
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "setup: Swift 6 is required (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
