// Package s3env is the S3 client of the store a guidepost server uses,
// read from the server's own variables (S3_*) with its defaults, for the
// tools that talk to that store themselves.
package s3env

import (
	"cmp"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Client is configured as guidepost's objstore is for an S3-compatible
// server: path-style, checksums only where an operation requires them.
func Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       cmp.Or(os.Getenv("S3_REGION"), "us-east-1"),
		BaseEndpoint: aws.String(cmp.Or(os.Getenv("S3_ENDPOINT"), "http://127.0.0.1:7070")),
		UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(cmp.Or(os.Getenv("S3_ACCESS_KEY"), "guidepost"),
			cmp.Or(os.Getenv("S3_SECRET_KEY"), "guidepost-secret"), ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// Bucket is the server's bucket.
func Bucket() string { return cmp.Or(os.Getenv("S3_BUCKET"), "guidepost") }
