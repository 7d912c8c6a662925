"""A progress bar with ETA on stderr; one line per trial when stderr is not a terminal."""

import shutil
import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    WIDTH = 24

    def __init__(self, total: int, stream=None):
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.start = time.monotonic()
        self.shown = False

    def eta(self) -> str:
        if not self.done:
            return "?"
        # Trials in a run have similar lengths, so the mean so far predicts the rest.
        per_trial = (time.monotonic() - self.start) / self.done
        return _clock(per_trial * (self.total - self.done))

    def starting(self, what: str):
        if self.live:
            self._draw(what)

    def finished(self, what: str, ok: bool):
        self.done += 1
        if self.live:
            self._draw(what)
        else:
            status = "ok" if ok else "FAILED"
            print(f"[{self.done}/{self.total}] {status} {what} (ETA {self.eta()})", file=self.stream,
                  flush=True)

    def say(self, line: str):
        """A message that stays on screen above the bar."""
        if self.live and self.shown:
            self.stream.write("\r\033[K")
        print(line, file=self.stream, flush=True)

    def close(self):
        if self.live and self.shown:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, what: str):
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        elapsed = _clock(time.monotonic() - self.start)
        line = f"[{bar}] {self.done}/{self.total} {elapsed} ETA {self.eta()}  {what}"
        width = shutil.get_terminal_size().columns - 1      # a wrapped line could not be redrawn
        self.stream.write("\r\033[K" + line[:width])
        self.stream.flush()
        self.shown = True
