# Ligature server image: build on Debian 12 with the project's own install script, then a
# slim runtime stage that serves gRPC on 0.0.0.0:50051 and Prometheus metrics on :9090.
FROM debian:12 AS build
WORKDIR /src
COPY deploy/install-deps.sh deploy/install-deps.sh
RUN deploy/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build -j "$(nproc)" --target ligatured ligature-gateway ligature

FROM debian:12 AS runtime
COPY deploy/install-deps.sh /tmp/install-deps.sh
RUN /tmp/install-deps.sh --runtime && rm -rf /var/lib/apt/lists/* /tmp/install-deps.sh
COPY --from=build /src/build/server/ligatured /usr/local/bin/ligatured
COPY --from=build /src/build/server/ligature-gateway /usr/local/bin/ligature-gateway
COPY --from=build /src/build/clients/cpp/ligature /usr/local/bin/ligature
RUN useradd --system --no-create-home ligature
USER ligature
EXPOSE 50051 9090
ENTRYPOINT ["/usr/local/bin/ligatured", "--listen=0.0.0.0:50051", "--allow_insecure=true", "--metrics_address=0.0.0.0:9090"]
