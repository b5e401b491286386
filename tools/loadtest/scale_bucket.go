package main

import (
	"cmp"
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// ensureBucket makes the servers' bucket (S3_*, guidepost's defaults), so
// a scale run keeps its objects in a bucket of its own; one that exists
// is fine.
func ensureBucket(ctx context.Context) error {
	client := s3.New(s3.Options{
		Region:       cmp.Or(os.Getenv("S3_REGION"), "us-east-1"),
		BaseEndpoint: aws.String(cmp.Or(os.Getenv("S3_ENDPOINT"), "http://127.0.0.1:7070")),
		UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(cmp.Or(os.Getenv("S3_ACCESS_KEY"), "guidepost"),
			cmp.Or(os.Getenv("S3_SECRET_KEY"), "guidepost-secret"), ""),
	})
	bucket := cmp.Or(os.Getenv("S3_BUCKET"), "guidepost")
	_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if errors.As(err, &owned) || errors.As(err, &exists) {
		return nil
	}
	return err
}
