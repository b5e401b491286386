# syntax=docker/dockerfile:1
# Multi-stage: build a static binary, ship it alone on a distroless base as
# a non-root user. The same binary runs `serve`, `worker` and `migrate`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off and the nodynamic tag keep the binary static: without the tag the
# HEIC decoder links the dynamic loader to try a system libheif first.
RUN CGO_ENABLED=0 go build -tags nodynamic -trimpath -ldflags="-s -w" -o /out/guidepost ./cmd/guidepost

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/guidepost /usr/local/bin/guidepost
USER nonroot:nonroot
ENV HTTP_ADDR=0.0.0.0:8080 LOG_FORMAT=json GUIDEPOST_ENV=production
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/guidepost"]
CMD ["serve"]
