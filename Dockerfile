# The hetbench operator image: hetbench-operator (the entrypoint) and the hetbench CLI on
# debian:bookworm-slim. docs/deploy.md says how to build, push and run it.
#
#   docker build -t hetbench/operator:0.1.0 .
#
# The build stage installs the operator's build packages only (scripts/setup --operator-only: no
# test tools, no LibTorch) and runs scripts/build's CMake commands (warnings as errors, CI's
# RelWithDebInfo) without the tests, kubesim and the LibTorch workloads, for the two programs
# only, which it strips. (Release's -O3 trips GCC 12's false -Wrestrict warnings in
# libstdc++, fatal under -Werror.) The runtime stage holds the programs and the shared libraries
# they load: the package list is what images/debian-runtime-packages derives from the built
# binaries, which tests/packaging checks.
# The image runs as a numeric non-root user with a read-only root file system: the operator
# writes only to --log-dir, /var/lib/hetbench/logs, which the Deployment mounts as a volume.

FROM debian:bookworm AS build
WORKDIR /src
# The packages first, so that a change of the sources does not install them again.
COPY scripts/setup scripts/setup
RUN scripts/setup --operator-only
COPY . .
RUN cmake -S . -B build -G Ninja -DHETBENCH_WERROR=ON \
      -DHETBENCH_TESTS=OFF -DHETBENCH_KUBESIM=OFF -DHETBENCH_WORKLOADS=OFF \
 && cmake --build build --target hetbench-operator hetbench \
 && install -D -m 0755 -s -t /out/bin \
      build/operator/cmd/hetbench-operator build/operator/cmd/hetbench \
 && install -d -m 0755 /out/logs

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libbrotli1 libcpprest2.10 libdate-tz3 libfmt9 libgcc-s1 libprometheus-cpp-core1.0 \
      libre2-9 libspdlog1.10 libssl3 libstdc++6 libyaml-cpp0.7 tzdata zlib1g \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/bin/ /usr/local/bin/
# The default --log-dir, writable by the user below when no volume is mounted on it.
COPY --from=build --chown=65532:65532 /out/logs/ /var/lib/hetbench/logs/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/hetbench-operator"]
