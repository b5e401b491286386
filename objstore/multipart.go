package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

var _ media.Multipart = (*S3)(nil)

// CreateMultipart opens a multipart upload of key. The SHA-256 checksum
// algorithm is named only when the parts will carry their checksums: a
// Complete that carries part checksums is refused by versitygw when Create
// named no algorithm, and S3 refuses one that lacks them when it did.
func (b *S3) CreateMultipart(ctx context.Context, key, contentType string, checksums bool) (string, error) {
	in := &s3.CreateMultipartUploadInput{Bucket: &b.bucket, Key: &key, ContentType: aws.String(contentType)}
	if checksums {
		in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256
	}
	out, err := b.client.CreateMultipartUpload(ctx, in)
	if err != nil {
		return "", wrap(err, key)
	}
	return aws.ToString(out.UploadId), nil
}

// PresignPart returns a URL that PUTs part of an upload until ttl passes.
// The size is signed into it: a body of any other length is refused by the
// server. A part with a SHA-256 has it signed too (x-amz-checksum-sha256,
// returned in header for the client to send): the server hashes what
// arrives and keeps nothing of a cut or altered body, which a size alone
// cannot promise (see TestACutPartOnTheServerWeShip).
func (b *S3) PresignPart(ctx context.Context, key, uploadID string, part media.Part, ttl time.Duration) (string, map[string]string, error) {
	in := &s3.UploadPartInput{
		Bucket: &b.bucket, Key: &key, UploadId: &uploadID, PartNumber: aws.Int32(part.Number), ContentLength: aws.Int64(part.Size),
	}
	if part.SHA256 != "" {
		sum, err := checksumOf(part.SHA256)
		if err != nil {
			return "", nil, err
		}
		in.ChecksumSHA256 = &sum
	}
	req, err := b.presign.PresignUploadPart(ctx, in, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", nil, wrap(err, key)
	}
	return req.URL, clientHeaders(req.SignedHeader), nil
}

// clientHeaders is what of the signed headers a client must set itself:
// every HTTP client sets Host and Content-Length from the URL and the body
// (and a browser refuses to let a page set them).
func clientHeaders(signed http.Header) map[string]string {
	var out map[string]string
	for name, v := range signed {
		switch strings.ToLower(name) {
		case "host", "content-length":
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.ToLower(name)] = strings.Join(v, ",")
	}
	return out
}

// checksumOf is a hex SHA-256 as S3 carries it: base64 of the digest.
func checksumOf(hexSum string) (string, error) {
	b, err := hex.DecodeString(hexSum)
	if err != nil || len(b) != sha256.Size {
		return "", guidepost.Errorf(guidepost.EINTERNAL, "a part's SHA-256 %q is not 64 hexadecimal digits", hexSum)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// hexOf is the hex form of a checksum S3 listed; one that is not base64 of
// a SHA-256 is kept as it is, so it matches no declared checksum.
func hexOf(sum string) string {
	b, err := base64.StdEncoding.DecodeString(sum)
	if err != nil || len(b) != sha256.Size {
		return sum
	}
	return hex.EncodeToString(b)
}

// ListParts returns the parts the server holds, in order, each with the
// SHA-256 the server verified when it was sent with one. An upload that is
// no longer open (completed or aborted) is ENOTFOUND.
func (b *S3) ListParts(ctx context.Context, key, uploadID string) ([]media.Part, error) {
	p := s3.NewListPartsPaginator(b.client, &s3.ListPartsInput{Bucket: &b.bucket, Key: &key, UploadId: &uploadID})
	var parts []media.Part
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, wrapUpload(err, key)
		}
		for _, pt := range page.Parts {
			parts = append(parts, media.Part{Number: aws.ToInt32(pt.PartNumber), Size: aws.ToInt64(pt.Size),
				ETag: aws.ToString(pt.ETag), SHA256: hexOf(aws.ToString(pt.ChecksumSHA256))})
		}
	}
	return parts, nil
}

// CompleteMultipart joins parts (number, ETag and SHA-256, as ListParts
// gave them) into the object.
func (b *S3) CompleteMultipart(ctx context.Context, key, uploadID string, parts []media.Part) error {
	done := make([]types.CompletedPart, len(parts))
	for i, pt := range parts {
		done[i] = types.CompletedPart{PartNumber: aws.Int32(pt.Number), ETag: aws.String(pt.ETag)}
		if pt.SHA256 != "" {
			sum, err := checksumOf(pt.SHA256)
			if err != nil {
				return err
			}
			done[i].ChecksumSHA256 = &sum
		}
	}
	_, err := b.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &b.bucket, Key: &key, UploadId: &uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done},
	})
	return wrapUpload(err, key)
}

// AbortMultipart discards an upload and its parts; one already gone is not
// an error, so retries are safe.
func (b *S3) AbortMultipart(ctx context.Context, key, uploadID string) error {
	_, err := b.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &b.bucket, Key: &key, UploadId: &uploadID})
	if err = wrapUpload(err, key); guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return nil
	}
	return err
}

// ListMultipart calls fn for every open upload under prefix, page by page.
func (b *S3) ListMultipart(ctx context.Context, prefix string, fn func(media.OpenUpload) error) error {
	in := &s3.ListMultipartUploadsInput{Bucket: &b.bucket, Prefix: &prefix}
	for {
		page, err := b.client.ListMultipartUploads(ctx, in)
		if err != nil {
			return wrap(err, prefix)
		}
		for _, u := range page.Uploads {
			o := media.OpenUpload{Key: aws.ToString(u.Key), UploadID: aws.ToString(u.UploadId), Initiated: aws.ToTime(u.Initiated)}
			if err := fn(o); err != nil {
				return err
			}
		}
		if !aws.ToBool(page.IsTruncated) {
			return nil
		}
		in.KeyMarker, in.UploadIdMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}

// Stat is the stored size and ETag of key (a HEAD request).
func (b *S3) Stat(ctx context.Context, key string) (int64, string, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return 0, "", wrap(err, key)
	}
	return aws.ToInt64(out.ContentLength), aws.ToString(out.ETag), nil
}

// ReadFrom opens key for reading from off to its end, and returns the
// object's whole size too (from Content-Range), so a first read needs no
// HEAD before it; the caller closes the body.
func (b *S3) ReadFrom(ctx context.Context, key string, off int64) (io.ReadCloser, int64, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: &b.bucket, Key: &key, Range: aws.String(fmt.Sprintf("bytes=%d-", off)),
	})
	if err != nil {
		return nil, 0, wrap(err, key)
	}
	_, total, ok := strings.Cut(aws.ToString(out.ContentRange), "/")
	size, perr := strconv.ParseInt(total, 10, 64)
	if !ok || perr != nil {
		out.Body.Close()
		return nil, 0, guidepost.Errorf(guidepost.EUNAVAILABLE, "photo storage answered a ranged read without the object's size")
	}
	return out.Body, size, nil
}

// wrapUpload is wrap, where an upload id the server no longer knows means
// the upload is gone.
func wrapUpload(err error, key string) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchUpload" {
		return guidepost.Wrap(guidepost.ENOTFOUND, err, "upload of "+key+" not found")
	}
	return wrap(err, key)
}
