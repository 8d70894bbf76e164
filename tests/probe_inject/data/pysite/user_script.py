# The user's code: each capture must be reported at the line marked SITE, in the named function.
import sys
import threading

sys.path.insert(0, sys.argv[2])
import fakelib  # noqa: E402

fakelib.load(sys.argv[1])


class Trainer:
    def step(self):
        return fakelib.item()  # SITE Trainer.step


def loop():
    results = [fakelib.item() for _ in range(2)]  # SITE loop
    return results


print("A", *Trainer().step())
for rc, site in loop():
    print("B", rc, site)
out = []
t = threading.Thread(target=lambda: out.append(fakelib.item()))  # SITE <lambda>
t.start()
t.join()
print("C", *out[0])

# Timed calls (Python 3.12+, sys.monitoring): a C callable called from the user's frame three times.
# The first capture makes the probe watch that instruction; the next two calls are timed ("T" lines).
fakelib.time_calls()
raw, buf = fakelib.raw_capture()
for _ in range(3):
    raw(buf, 4096)  # SITE timed
print("V", sys.version_info[0], sys.version_info[1])
