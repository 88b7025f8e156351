# The two Quickstart commands (spec 60 §1): `make run` and `make test`.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 15

.PHONY: deps build run test test-release test-asan test-fuzz bench fuzz clean format

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

run: build
	./build/release/tilesim run
	@for e in build/release/examples/example_*; do [ -x "$$e" ] || continue; echo "== $$e"; "$$e" || exit 1; done

test-release: build
	ctest --preset release

test-asan: deps
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan

# Short libFuzzer runs of every target (the full runs are `make fuzz`).
test-fuzz: deps
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	bash scripts/run-fuzz.sh build/fuzz $(FUZZ_SMOKE_SECONDS)

test: test-release test-asan test-fuzz

bench: build
	/usr/bin/python3 bench/compare.py --build build/release

fuzz: deps
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	bash scripts/run-fuzz.sh build/fuzz $(FUZZ_SECONDS)

format:
	find include src tools python/src tests bench examples -name '*.[ch]pp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf build
