-- +goose Up
-- Why a photo failed, as the metrics label (corrupt, gave_up, …), beside the
-- words its owner reads. An upload of the same bytes retries a photo that
-- failed for a reason outside the photo (the worker gave up during an
-- outage, the original was lost) and answers with the failure of one that
-- would only fail again (corrupt, unsupported, too many pixels).
ALTER TABLE media ADD COLUMN failure_reason text;

-- Rows that failed before this column: the words map one to one to a reason.
UPDATE media SET failure_reason = CASE failure
    WHEN 'The photo could not be read: the file is damaged or incomplete. Please upload it again.' THEN 'corrupt'
    WHEN 'This file is not a photo we can read. Please upload a JPEG, PNG, WebP or HEIC photo.' THEN 'unsupported'
    WHEN 'The photo has more than 50 megapixels. Please upload a smaller one.' THEN 'too_many_pixels'
    WHEN 'The file is too large. Please upload a smaller photo.' THEN 'too_large'
    WHEN 'The uploaded file was lost before it could be processed. Please upload it again.' THEN 'missing_original'
    WHEN 'We could not process this photo. Please upload it again.' THEN 'gave_up'
END
WHERE status = 'failed';

-- +goose Down
ALTER TABLE media DROP COLUMN failure_reason;
