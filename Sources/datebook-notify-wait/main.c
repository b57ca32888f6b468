// datebook-notify-wait PROGRAM [ARGUMENT]...
//
// What waits for the click on a notification's Done or Snooze button (docs/desktop.md): its stdin
// is notify-send's output after the notification's id. It reads lines until one is an action key
// (1 to 32 of a-z 0-9 - _), then runs PROGRAM ARGUMENT... KEY in its place (execv: an argv, never a
// shell; PROGRAM is the absolute path of datebook). At end of file (the notification was closed or
// expired unclicked) it exits 0 having run nothing. About 2 MB resident while it waits (libc's and
// libstdc++'s pages, which the Swift link adds), where a whole datebook process is about 15 MB.
//
// Its environment may bound the wait: DATEBOOK_NOTIFY_UNTIL (seconds since 1970) and
// DATEBOOK_NOTIFY_PID (notify-send's process). At that moment, with no answer read, it ends
// notify-send (SIGTERM) and exits 0: a notify-send whose notification daemon restarted never hears
// of its notification again, and would otherwise wait for the rest of the session.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static time_t until;  // 0: no bound

// Waits for stdin to be readable: 1 readable (or end of file), 0 the bound has passed.
static int wait_readable(void) {
    if (until == 0) return 1;
    for (;;) {
        time_t now = time(NULL);
        if (now >= until) return 0;
        long long left = (long long)(until - now) * 1000;
        struct pollfd poller = { .fd = STDIN_FILENO, .events = POLLIN };
        int ready = poll(&poller, 1, left > 60000 ? 60000 : (int)left);
        if (ready > 0) return 1;
        if (ready < 0 && errno != EINTR) return 1;  // let read() report it
    }
}

enum { key_capacity = 32 };

static int is_key_byte(char byte) {
    return (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') || byte == '-' || byte == '_';
}

// The next line that is an action key, into `key`; 0 at end of file, -1 when the bound passed.
static int read_key(char key[key_capacity + 1]) {
    size_t length = 0;
    int valid = 1;
    for (;;) {
        char byte;
        if (!wait_readable()) return -1;
        ssize_t count = read(STDIN_FILENO, &byte, 1);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        if (byte != '\n') {
            if (length < key_capacity && is_key_byte(byte)) key[length++] = byte; else valid = 0;
            continue;
        }
        if (valid && length > 0) {
            key[length] = '\0';
            return 1;
        }
        length = 0;
        valid = 1;
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] != '/') {
        fputs("usage: datebook-notify-wait /PATH/TO/datebook [ARGUMENT]... (stdin: notify-send's output)\n", stderr);
        return 64;
    }
    const char *until_text = getenv("DATEBOOK_NOTIFY_UNTIL"), *pid_text = getenv("DATEBOOK_NOTIFY_PID");
    long pid = pid_text ? strtol(pid_text, NULL, 10) : 0;
    if (until_text && pid > 1) until = (time_t)strtoll(until_text, NULL, 10);
    unsetenv("DATEBOOK_NOTIFY_UNTIL");
    unsetenv("DATEBOOK_NOTIFY_PID");
    char key[key_capacity + 1];
    int found = read_key(key);
    if (found < 0) kill((pid_t)pid, SIGTERM);
    if (found <= 0) return 0;
    char **arguments = calloc((size_t)argc + 1, sizeof *arguments);
    if (arguments == NULL) return 71;
    for (int index = 1; index < argc; index++) arguments[index - 1] = argv[index];
    arguments[argc - 1] = key;
    execv(argv[1], arguments);
    fprintf(stderr, "datebook-notify-wait: cannot run %s: %s\n", argv[1], strerror(errno));
    return 69;
}
