package main

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/guidepost/guidepost/tools/internal/s3env"
)

// ensureBucket makes the servers' bucket (S3_*), so a scale run keeps its
// objects in a bucket of its own; one that exists is fine.
func ensureBucket(ctx context.Context) error {
	bucket := s3env.Bucket()
	_, err := s3env.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if errors.As(err, &owned) || errors.As(err, &exists) {
		return nil
	}
	return err
}
