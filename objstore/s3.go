// Package objstore keeps photo bytes in an S3-compatible object store.
// It knows nothing of media: keys and meaning belong to the caller.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

// Config names the server and bucket.
type Config struct {
	Endpoint string
	// PublicEndpoint is the host presigned URLs name ("": Endpoint): the
	// address a phone or a browser reaches the store at, where the API
	// reaches it on an internal one. A presigned URL is signed for its
	// host, so it is signed by a client of that endpoint.
	PublicEndpoint string
	Region         string
	Bucket         string
	AccessKey      string
	SecretKey      string
}

// S3 is a bucket on an S3-compatible server.
type S3 struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

var _ media.Blobs = (*S3)(nil)

// New builds a client. It does not touch the network; call Ping.
func New(cfg Config) *S3 {
	client := newClient(cfg, cfg.Endpoint)
	signer := client
	if cfg.PublicEndpoint != "" && cfg.PublicEndpoint != cfg.Endpoint {
		signer = newClient(cfg, cfg.PublicEndpoint) // presigning is local: it never dials this host
	}
	return &S3{client: client, presign: s3.NewPresignClient(signer), bucket: cfg.Bucket}
}

func newClient(cfg Config, endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:       cfg.Region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, ""),
		// S3-compatible servers vary in their support of the SDK's default
		// CRC checksums; the SigV4 payload hash already protects the body.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		// Two quick attempts and no retry quota: when the server is down an
		// upload must fail fast (503) rather than queue behind backoffs, and
		// sustained failure must not exhaust a quota that outlives the outage.
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 2
			o.MaxBackoff = 200 * time.Millisecond
			o.RateLimiter = ratelimit.None
		}),
		// Every network step has a bound: a stalled server (packets dropped
		// rather than refused) must fail an upload in seconds, not minutes.
		HTTPClient: &http.Client{Transport: &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
		}},
	})
}

// Bucket is the bucket's name.
func (b *S3) Bucket() string { return b.bucket }

// Ping reports whether the bucket answers; readiness uses it.
func (b *S3) Ping(ctx context.Context) error {
	_, err := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &b.bucket})
	return wrap(err, "bucket "+b.bucket)
}

// CreateBucket makes the bucket if it does not exist.
func (b *S3) CreateBucket(ctx context.Context) error {
	_, err := b.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b.bucket})
	var owned *types.BucketAlreadyOwnedByYou
	if errors.As(err, &owned) {
		return nil
	}
	return wrap(err, "bucket "+b.bucket)
}

// Put stores body under key. sha256Hex, when known, is reused as the SigV4
// payload hash so a 15 MB photo is not hashed a second time.
func (b *S3) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error {
	if sha256Hex != "" {
		ctx = v4.SetPayloadHash(ctx, sha256Hex)
	}
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &b.bucket,
		Key:           &key,
		Body:          body,
		ContentLength: aws.Int64(size),
		ContentType:   aws.String(contentType),
	})
	return wrap(err, key)
}

// ImmutableCacheControl is what a derivative is stored with: its name
// changes with its content, so a CDN and a phone may keep it for a year.
const ImmutableCacheControl = "public, max-age=31536000, immutable"

// PutImmutable stores body under key like Put, with ImmutableCacheControl,
// which S3 and any CDN in front of it send back on every GET.
func (b *S3) PutImmutable(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error {
	if sha256Hex != "" {
		ctx = v4.SetPayloadHash(ctx, sha256Hex)
	}
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &b.bucket,
		Key:           &key,
		Body:          body,
		ContentLength: aws.Int64(size),
		ContentType:   aws.String(contentType),
		CacheControl:  aws.String(ImmutableCacheControl),
	})
	return wrap(err, key)
}

// Get opens key for reading; the caller closes it.
func (b *S3) Get(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return nil, 0, wrap(err, key)
	}
	return out.Body, aws.ToInt64(out.ContentLength), nil
}

// Exists reports whether key is stored.
func (b *S3) Exists(ctx context.Context, key string) (bool, error) {
	_, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &key})
	if err == nil {
		return true, nil
	}
	if err = wrap(err, key); guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return false, nil
	}
	return false, err
}

// Copy copies src to dst inside the bucket, server side. Copying again
// writes the same bytes, so a repeated copy is safe.
func (b *S3) Copy(ctx context.Context, src, dst string) error {
	source := b.bucket + "/" + src
	_, err := b.client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &b.bucket, Key: &dst, CopySource: &source})
	return wrap(err, src)
}

// Delete removes key; a missing key is not an error, so retries are safe.
func (b *S3) Delete(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &key})
	if err = wrap(err, key); guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return nil
	}
	return err
}

// PresignGet returns a URL that reads key until ttl passes.
func (b *S3) PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error) {
	req, err := b.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key},
		s3.WithPresignExpires(ttl))
	if err != nil {
		return "", wrap(err, key)
	}
	return req.URL, nil
}

// PresignGetAt returns a URL that reads key from signedAt until ttl after
// it. The URL is a function of key, signedAt and ttl alone (static
// credentials), so callers that round signedAt hand out one URL for the
// whole window, which phones and CDNs can cache.
func (b *S3) PresignGetAt(ctx context.Context, key string, signedAt time.Time, ttl time.Duration) (string, error) {
	req, err := b.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key},
		s3.WithPresignExpires(ttl), func(o *s3.PresignOptions) {
			o.Presigner = signingAt{v4.NewSigner(), signedAt.UTC()}
		})
	if err != nil {
		return "", wrap(err, key)
	}
	return req.URL, nil
}

// signingAt presigns as of a given time: the SDK hands its presigner the
// current time, and this one replaces it.
type signingAt struct {
	signer *v4.Signer
	at     time.Time
}

func (s signingAt) PresignHTTP(ctx context.Context, cred aws.Credentials, r *http.Request, payloadHash, service, region string,
	_ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return s.signer.PresignHTTP(ctx, cred, r, payloadHash, service, region, s.at, optFns...)
}

// List calls fn for every key under prefix, page by page, so a sweeper can
// walk a bucket of millions without holding it in memory.
func (b *S3) List(ctx context.Context, prefix string, fn func(media.Object) error) error {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return wrap(err, prefix)
		}
		for _, o := range page.Contents {
			obj := media.Object{Key: aws.ToString(o.Key), LastModified: aws.ToTime(o.LastModified), Size: aws.ToInt64(o.Size)}
			if err := fn(obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// wrap maps SDK errors to the application vocabulary: a missing key is
// ENOTFOUND, anything else means the store is unavailable to us right now.
func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err // the caller gave up; nothing to report about the store
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "NoSuchBucket":
			// A missing bucket is a misconfigured or unready store, never a
			// missing photo: a worker must retry, not mark photos lost.
			return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "photo storage is unavailable; try again shortly")
		case "NoSuchKey", "NotFound":
			return guidepost.Wrap(guidepost.ENOTFOUND, err, fmt.Sprintf("%s not found", what))
		}
	}
	return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "photo storage is unavailable; try again shortly")
}
