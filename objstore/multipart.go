package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// CreateMultipart opens a multipart upload of key. No checksum algorithm is
// named: clients PUT parts with plain presigned URLs, and a Complete that
// carried part checksums would then be refused.
func (b *S3) CreateMultipart(ctx context.Context, key, contentType string) (string, error) {
	out, err := b.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket: &b.bucket, Key: &key, ContentType: aws.String(contentType),
	})
	if err != nil {
		return "", wrap(err, key)
	}
	return aws.ToString(out.UploadId), nil
}

// PresignPart returns a URL that PUTs part number of an upload until ttl
// passes. The size is signed into it: a body of any other length is refused
// by the server, so a part once held has the size it was given.
func (b *S3) PresignPart(ctx context.Context, key, uploadID string, number int32, size int64, ttl time.Duration) (string, error) {
	req, err := b.presign.PresignUploadPart(ctx, &s3.UploadPartInput{
		Bucket: &b.bucket, Key: &key, UploadId: &uploadID, PartNumber: aws.Int32(number), ContentLength: aws.Int64(size),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", wrap(err, key)
	}
	return req.URL, nil
}

// ListParts returns the parts the server holds, in order. An upload that is
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
			parts = append(parts, media.Part{Number: aws.ToInt32(pt.PartNumber), Size: aws.ToInt64(pt.Size), ETag: aws.ToString(pt.ETag)})
		}
	}
	return parts, nil
}

// CompleteMultipart joins parts (number and ETag, as ListParts gave them)
// into the object.
func (b *S3) CompleteMultipart(ctx context.Context, key, uploadID string, parts []media.Part) error {
	done := make([]types.CompletedPart, len(parts))
	for i, pt := range parts {
		done[i] = types.CompletedPart{PartNumber: aws.Int32(pt.Number), ETag: aws.String(pt.ETag)}
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
