# syntax=docker/dockerfile:1
# Multi-stage: build a static binary, ship it alone on a distroless base as
# a non-root user. The same binary runs `serve`, `worker` and `migrate`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# libjpeg-turbo and libwebp (cgo) for the photo worker, linked from
# libjpeg.a and libwebp.a; pkg-config tells what else a static link of
# libwebp needs (libsharpyuv from libwebp 1.3 on); file is for the check.
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo-dev libwebp-dev pkg-config file \
    && rm -rf /var/lib/apt/lists/*
# The binary stays static: -extldflags -static links libjpeg, libwebp and
# libc in; netgo and osusergo keep the resolver and user lookups in Go
# (glibc's need its shared modules at run time); and without nodynamic the
# HEIC decoder links the dynamic loader to try a system libheif first. The
# script (the same on any Debian 12 machine, without Docker) fails the build
# if anything dynamic slipped in, and renders a test photo in JPEG, WebP and
# AVIF with the binary it made.
RUN bash scripts/build-static.sh /out/guidepost

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/guidepost /usr/local/bin/guidepost
USER nonroot:nonroot
ENV HTTP_ADDR=0.0.0.0:8080 LOG_FORMAT=json GUIDEPOST_ENV=production
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/guidepost"]
CMD ["serve"]
