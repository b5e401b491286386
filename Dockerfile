# syntax=docker/dockerfile:1
# Multi-stage: build a static binary, ship it alone on a distroless base as
# a non-root user. The same binary runs `serve`, `worker` and `migrate`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# libjpeg-turbo and libwebp (cgo) for the photo worker, linked from
# libjpeg.a and libwebp.a.
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo-dev libwebp-dev \
    && rm -rf /var/lib/apt/lists/*
# The binary stays static: -extldflags -static links libjpeg and libc in;
# netgo and osusergo keep the resolver and user lookups in Go (glibc's need
# its shared modules at run time); and without nodynamic the HEIC decoder
# links the dynamic loader to try a system libheif first. The check fails
# the build if anything dynamic slipped in.
RUN CGO_ENABLED=1 go build -tags nodynamic,netgo,osusergo -trimpath \
    -ldflags='-s -w -linkmode external -extldflags "-static"' -o /out/guidepost ./cmd/guidepost \
    && ! ldd /out/guidepost >/dev/null 2>&1

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/guidepost /usr/local/bin/guidepost
USER nonroot:nonroot
ENV HTTP_ADDR=0.0.0.0:8080 LOG_FORMAT=json GUIDEPOST_ENV=production
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/guidepost"]
CMD ["serve"]
