package objstore

import "github.com/aws/aws-sdk-go-v2/service/s3"

// Client is the bucket's SDK client, for tests that probe the server
// beyond what the package offers.
func (b *S3) Client() *s3.Client { return b.client }
