# Front end for the two commands of the README and a few helpers. Every target that builds
# runs the set-up first, so a fresh Debian machine needs nothing else.
JOBS ?= 2
CTEST_JOBS ?= 2
PYTEST_JOBS ?= 2
PYTHON := .venv/bin/python

.PHONY: setup build build-bench build-torture test test-asan test-tsan test-release test-python test-consumer test-bench-clang torture bench clean

setup:
	@scripts/setup.sh

# Release build of everything (library tests, Relacy models, smrbench) under build/release.
build: setup
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

# Only what the experiments need: the benchmark binary.
build-bench: setup
	cmake --preset release
	cmake --build --preset release -j $(JOBS) --target smrbench

test-asan: setup
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(CTEST_JOBS)

test-tsan: setup
	cmake --preset tsan
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(CTEST_JOBS)

test-release: build
	ctest --preset release -j $(CTEST_JOBS)

test-python: setup
	$(PYTHON) -m pytest -q -n $(PYTEST_JOBS) tools/smrlab/tests

# smrbench built with Clang, and its tests (tests/bench: every compatible pair, the refusals, the
# record): the other presets build smrbench with GCC only. About 4 minutes of compilation and
# half a minute of tests on two cores; part of `make torture`, not of `make test`.
test-bench-clang: setup
	cmake --preset bench-clang
	cmake --build --preset bench-clang -j $(JOBS)
	ctest --preset bench-clang -j $(CTEST_JOBS)

# A tiny project consuming smr: installed (find_package, pkg-config) and as a subdirectory
# (add_subdirectory, FetchContent: only the library target). Builds under build/consumer.
test-consumer: setup
	tests/consumer/run.sh build/consumer

# All tests: ASan+UBSan stress, TSan stress, the release build with the Relacy models and
# smrbench's tests, smrlab's pytest suite, and the consumer projects. The examples are built and
# run by each preset's ctest.
test: test-asan test-tsan test-release test-python test-consumer

# The stress suites with every reclaimer x structure pair, optimised, for the poison-mode run of
# `make torture` (the release preset builds a spanning set of reclaimers; docs/verification.md).
build-torture: setup
	cmake --preset torture
	cmake --build --preset torture -j $(JOBS)

# The long stress run, not part of `make test`: every stress suite (ctest label `stress`) at
# SMR_STRESS_SCALE 10 x TORTURE_SCALE with every pair in poison mode (build/torture) and with
# ASan, and 2 x TORTURE_SCALE with TSan (the test presets run ASan and release at 4, TSan at 1),
# and the longest Relacy context-bound searches (ctest label `torture`), and smrbench built with
# Clang. Over an hour at the default scale of 8 on two cores.
TORTURE_SCALE ?= 8
torture: build build-torture test-asan test-tsan test-bench-clang
	ctest --test-dir build/release -L torture --timeout 7200 --output-on-failure -j $(CTEST_JOBS)
	SMR_POISON=1 SMR_STRESS_SCALE=$$((10 * $(TORTURE_SCALE))) ctest --test-dir build/torture -L stress --timeout 7200 --output-on-failure -j $(CTEST_JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 SMR_STRESS_SCALE=$$((10 * $(TORTURE_SCALE))) ctest --test-dir build/asan -L stress --timeout 7200 --output-on-failure -j $(CTEST_JOBS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 SMR_STRESS_SCALE=$$((2 * $(TORTURE_SCALE))) ctest --test-dir build/tsan -L stress --timeout 7200 --output-on-failure -j $(CTEST_JOBS)

# The main job: build, run the default experiment (overview), print its summary and report path.
# Results of another build in results/overview are moved aside first (to results/overview.<time>),
# so a rebuild never reports the old build's trials; the same build resumes where it stopped.
# A failed trial still gets its report (it says which trial failed), then fails the target.
bench: build-bench
	@status=0; ./smrlab run overview --move-stale || status=$$?; \
	./smrlab report overview && ./smrlab summary overview || status=1; \
	exit $$status

clean:
	rm -rf build
