// Generated from api/openapi.yaml by scripts/generate.mjs (openapi-typescript); do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is alive (touches no dependency). */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Ready to serve; gates on PostgreSQL only, Redis and S3 are reported.
         * @description The body names each dependency's state (`ok` or `unavailable`) and a
         *     status: `ready`, `degraded` (Redis or S3 is down, or with
         *     DATABASE_REPLICA_URLS no replica is in rotation,
         *     `postgres_replicas`: the API keeps answering without them),
         *     `unavailable` (PostgreSQL is down) or
         *     `draining` (shutting down). The states come from one check at most
         *     a second old, shared by every call meanwhile: polling costs the
         *     dependencies (an S3 HeadBucket is billed) once a second however
         *     often it comes, and a dependency that goes down shows within about
         *     a second.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (404 here when METRICS_ADDR serves them on an internal address). */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document. */
        get: operations["getOpenAPIDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/map": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page, not an API operation: the demo map over the guide tiles.
         * @description Listed so that this document names every route the server answers.
         *     The page and its files are embedded in the binary, MapLibre GL JS and
         *     the basemap included: it loads nothing from elsewhere. Each answer
         *     carries a strong ETag and `Cache-Control: no-cache`, so a browser
         *     revalidates and gets 304 while the file is unchanged.
         */
        get: operations["getMapPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/map/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A script or style sheet of the map page (not an API operation). */
        get: operations["getMapPageFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/map/vendor/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A third-party file of the map page at its pinned version, or its licence (not an API operation).
         * @description MapLibre GL JS, the world-atlas country borders, topojson-client and thumbhash; `VERSIONS` names their versions.
         */
        get: operations["getMapPageVendoredFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/problems": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every problem type, as an HTML page. */
        get: operations["listProblemTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/problems/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a problem type means and what to do about it, as an HTML page.
         * @description Where a problem's `type` resolves. Pages of types whose problems name fields list the field error codes.
         */
        get: operations["getProblemType"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account with an email and a password.
         * @description An email already registered is 409, answered before the password is
         *     hashed and counted as a failed log-in (per client address and per
         *     email), so probing which emails are registered is rate limited as
         *     password guessing is: past either limit every attempt is 429.
         */
        post: operations["signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in; a wrong email or password is the same 401 /problems/credentials.
         * @description A wrong email or password is 401 with type /problems/credentials
         *     (errors: password, incorrect), never /problems/unauthorized: a
         *     client's "signed out" handling must not fire on its log-in screen.
         *     The auth routes (guest, signup, login, refresh) ignore any
         *     Authorization header. Failed log-ins are counted per client address and per email; past
         *     either limit every attempt is 429 (even with the right password)
         *     until Retry-After, without the password being checked. A log-in that
         *     succeeds does not count.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/guest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a guest account (no email, no password). */
        post: operations["createGuest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's account. */
        get: operations["getMe"];
        put?: never;
        post?: never;
        /**
         * Delete the caller's account and everything it owns.
         * @description At once: the account is closed, its email freed, and every session
         *     revoked (its tokens answer 401 from the next request on). Then, in
         *     the background, usually within seconds: its likes are removed (every
         *     like count corrected), its guides, its photos with their originals
         *     and derivatives, and the account row. A crash mid-way is finished by
         *     the sweeper within minutes.
         */
        delete: operations["deleteMe"];
        options?: never;
        head?: never;
        /**
         * Change the caller's display name.
         * @description Trimmed, 1 to 64 characters, no control or bidirectional control
         *     characters (as at sign-up). Every guide of the caller shows the new
         *     name at once, in lists too. A body without display_name changes
         *     nothing. A rename bumps every cached tile holding one of the
         *     caller's guides on every API process, so an account may send this
         *     RATE_RENAMES_PER_USER times (10 a day) and then gets 429.
         */
        patch: operations["updateMe"];
        trace?: never;
    };
    "/v1/me/guides": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's own guides, newest first.
         * @description The same items as the map lists (without distance_m), exact and
         *     read from the database. Cursors name the last guide of a page and
         *     do not expire.
         */
        get: operations["listMyGuides"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/about": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The operator's published contact and what a report may give as its reason. */
        get: operations["getAbout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a guide, a photo or a user to the moderators.
         * @description One open report per reporter and target: a repeat answers the
         *     existing report. Rate limited per account (RATE_REPORTS_PER_USER,
         *     30 an hour). When MODERATION_AUTO_HIDE_REPORTS distinct accounts
         *     (5; guests younger than 24 h, suspended and deleted accounts do not
         *     count) have open reports on a guide or photo, it is hidden until a
         *     moderator looks.
         */
        post: operations["fileReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's reports, newest first, with their outcome. */
        get: operations["listMyReports"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/moderation/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The open queue, one item per reported target, oldest report first.
         * @description Moderators only (403 for anyone else, and for a suspended moderator).
         */
        get: operations["moderationQueue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/moderation/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Act on a target; recorded in the audit log and told to its author.
         * @description Moderators only. hide takes a guide or photo off every public
         *     surface (nearby, viewport, clusters, tiles, search, other users'
         *     lists, every cache of every process) within a second; its author
         *     still sees it with `hidden`. restore brings it back. remove deletes
         *     it exactly as its owner's delete would. suspend ends every session
         *     of a user at once, refuses them new ones and hides their guides and
         *     photos; unsuspend brings back what the suspension hid. dismiss
         *     closes the open reports and lifts an automatic hold. Every action
         *     closes the target's open reports with itself as their outcome. A
         *     target that does not exist, or was deleted meanwhile, is a 404
         *     naming target_id; a restore of what is not hidden (an unsuspend of
         *     who is not suspended) a 409.
         */
        post: operations["moderationAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/moderation/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log, newest first - who did what to which target, when and why.
         * @description Moderators only.
         */
        get: operations["moderationAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/blocks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The users the caller blocks, most recently blocked first.
         * @description Blocked accounts since deleted are left out. Cursors name the last
         *     block of a page and do not expire.
         */
        get: operations["listMyBlocks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/blocks/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Block a user; blocking again returns the same block.
         * @description From the answer on, on every API process, the user's guides and
         *     photos leave the caller's signed-in answers: nearby, viewport,
         *     clusters, text search (404 for one guide or photo), and the user
         *     can no longer like the caller's guides (403). Vector tiles are
         *     shared: hide the user's features by `author_id` (README: Blocking
         *     users). Blocking yourself is 422 naming user_id (code self); an id
         *     of no account is 404 naming user_id (code not_found); past
         *     BLOCKS_MAX blocks (default 1,000) 422 naming user_id (code
         *     limit_reached).
         */
        put: operations["blockUser"];
        post?: never;
        /**
         * Unblock a user; unblocking again, or a user never blocked, is a success.
         * @description An id of no account (and no block) is 404 naming user_id; yourself is 422 naming user_id.
         */
        delete: operations["unblockUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's own photos, newest first, with the owner's fields.
         * @description Every photo in any status (deleted ones excepted), as GET
         *     /v1/media/{id} shows it to its owner. Cursors name the last photo of
         *     a page and do not expire.
         */
        get: operations["listMyMedia"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a refresh token for a new access token and the next refresh token.
         * @description An Authorization header is ignored here (a client refreshing an expired token may send it along). A refresh token works once, and each refresh moves the session's end to REFRESH_TTL from now (up to SESSION_MAX_AGE after it began). Presented again within REFRESH_GRACE of its use (a retry after a lost answer, or two requests racing) it gets a working answer of its own; presented after that, it revokes its whole session (it leaked).
         */
        post: operations["refreshSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke the caller's session; its access and refresh tokens stop working at once. */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the password; every session of the account is revoked, and a new one returned.
         * @description A wrong current_password counts as a failed log-in (per client address and per the account's email); past either limit every attempt is 429.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/upgrade": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn the caller's guest account into a full account, in place.
         * @description The user id stays the same, so every guide, photo and like the guest made stays theirs. Called with a guest's token; a full account gets 409. An email already registered is 409 too, answered before hashing and counted as a failed log-in, as at sign-up (then 429).
         */
        post: operations["upgradeGuest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Several photos at once (up to 100), each as GET /v1/media/{id} shows it to the caller.
         * @description For a screen of thumbnails, or to poll many pending photos in one
         *     request. Items come in the order asked; an id asked twice is
         *     answered once; an id that names no photo (or a deleted one) is
         *     listed in not_found, as is a photo of a user the caller blocks. The
         *     owner-only fields are shown for the caller's own photos only.
         */
        get: operations["getMediaBatch"];
        put?: never;
        /**
         * Upload a photo (JPEG, PNG, WebP or HEIC, at most 25 MiB and 50 megapixels); derivatives are made in the background.
         * @description The type is judged by magic bytes only. The same owner uploading the
         *     same bytes gets the existing photo back (200). With an
         *     Idempotency-Key, a repeat with the same file replays the first answer
         *     for 24 hours (header Idempotent-Replayed: true), a repeat with another
         *     file is 422, and a repeat while the first is in progress is 409.
         *
         *     Limits: a few uploads at once per account and per address (429),
         *     uploads per hour per account (429 with RateLimit headers), a body
         *     that stalls or trickles below the minimum rate after a grace period
         *     is cut (408), and an account over its quota of photos or bytes
         *     stored gets 403 with `quota` naming it. The rate and the quotas are
         *     one accounting with the direct uploads (/v1/uploads): an open
         *     upload holds its place in the quotas, and every photo accepted for
         *     rendering (a new one, or a failed one tried again) by either route
         *     spends the rate; a duplicate spends nothing. Both are checked before
         *     the body is read, and again before the photo is stored.
         */
        post: operations["uploadMedia"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A photo, its status and its URLs (public; sha256, failure, urls.original and capture for the owner only).
         * @description A photo of a user the caller blocks is 404 for the caller, as if it did not exist.
         */
        get: operations["getMedia"];
        put?: never;
        post?: never;
        /**
         * Delete a photo (owner only).
         * @description At once: GET answers 404 and the photo leaves every guide that showed
         *     it (lists show the guide's next photo as its cover within a second).
         *     Its original and derivatives are removed by a retried background job,
         *     usually within seconds; the sweeper finishes one a crash interrupted.
         */
        delete: operations["deleteMedia"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/{id}/{variant}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A short, stable path to one variant of a photo; 302 to where its bytes are.
         * @description What a list's `cover.urls.marker` names with presigned URLs, and
         *     any other variant by swapping the file name (Cover.urls). Answers
         *     302 to the variant's URL, the one GET /v1/media/{id} gives: a
         *     presigned URL signed for the hour and valid for two, or under
         *     MEDIA_PUBLIC_BASE_URL its public URL. `Cache-Control: private,
         *     max-age=N`: N is what the presigned URL has left less five
         *     minutes (55 minutes to 1 h 55 min), or an hour under a public
         *     base; a client (a browser's image cache) may reuse the redirect
         *     that long. Never 301: the path must stop leading anywhere once the
         *     photo is hidden or its author blocked, and a re-render names new
         *     objects.
         *
         *     Public, as GET /v1/media/{id}: an `<img>` sends no bearer and is
         *     answered as an anonymous reader. The same rules: a photo hidden by
         *     a moderator (or by its owner's suspension), deleted, or of a user
         *     the caller blocks is 404, exactly as a missing one (a hidden photo
         *     for its owner too: no one is given a hidden photo's derivatives).
         */
        get: operations["getMediaVariant"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server-sent events telling the caller when their photos turn ready or failed, whichever server processed them, and when a moderator acts on their content.
         * @description A `text/event-stream` (Server-Sent Events) that stays open. Each
         *     event is `id:`, `event:` and `data:` lines and a blank line, as the
         *     Event schema describes; lines starting with `:` are comments (one
         *     every 15 seconds keeps proxies from closing an idle stream) and the
         *     stream opens with `retry: 1000`. Events are sent from the moment the
         *     stream opens: open it before uploading, or read the photo after.
         *
         *     Resuming: a client that reconnects with `Last-Event-ID` (EventSource
         *     does so itself) gets every event after that id that the server
         *     still keeps (EVENTS_RESUME_WINDOW, 5 minutes by default), on any
         *     server; when the id is older than that, a `resync` event comes
         *     first.
         *
         *     The stream ends when the server shuts down or the access token
         *     expires or its session ends (checked every minute), with an `end`
         *     event naming the reason first (EndEvent): reconnect, with a fresh
         *     token if needed, and Last-Event-ID. An account may hold a few
         *     streams at once per server (EVENTS_MAX_PER_USER; past it 429 with
         *     Retry-After).
         *
         *     Signing in: the Authorization header, or, for a client that cannot
         *     send one (a browser's EventSource), `?ticket=` from POST
         *     /v1/events/ticket. A ticket works once and for 60 seconds; the
         *     stream then lives, and is rechecked, as the token that got the
         *     ticket would be (so it ends with token_expired when that token
         *     does: get a new ticket with a fresh token). Sending both is 400.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/ticket": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A single-use ticket, for 60 seconds, that opens one event stream (GET /v1/events?ticket=). */
        post: operations["createEventTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's uploads still open (not completed, cancelled or expired), each with fresh URLs.
         * @description An app killed before it saved an upload's id finds it here and resumes or cancels it, instead of leaving its UPLOAD_MAX_OPEN slots taken until UPLOAD_TTL. At most UPLOAD_MAX_OPEN items, oldest first.
         */
        get: operations["listUploads"];
        put?: never;
        /**
         * Start a direct upload; the client then PUTs the parts straight to S3.
         * @description Declare the file: its size, SHA-256 and type. If you already have a
         *     photo with that SHA-256, the answer is that photo (200) and nothing
         *     needs sending. Otherwise 201 with presigned S3 URLs, one per part of
         *     part_size bytes (one part for a file up to 5 MiB). PUT each part's
         *     bytes to its URL, then POST /v1/uploads/{id}/complete. Cut off? GET
         *     /v1/uploads/{id} says which parts S3 holds and gives fresh URLs for
         *     the rest. The two answers are told apart by their status or by
         *     `object` (`upload`, `media`). The same limits as POST /v1/media apply (413 over
         *     MAX_UPLOAD_BYTES, 415 off the type list); an account may have
         *     UPLOAD_MAX_OPEN uploads open and declare UPLOAD_DAILY_BYTES a day
         *     (409 naming uploads or bytes). The quotas and the upload rate are
         *     POST /v1/media's, one accounting for both routes: the declared
         *     size counts against the quotas while the upload is open (403), and
         *     an account whose rate is spent is refused here (429) before any
         *     byte is sent; completing spends it. Idempotency-Key works as on
         *     POST /v1/media; a replay gives fresh URLs. Declaring a file whose
         *     upload is open again (an app that lost the answer or its saved id)
         *     is 200 with that upload, not a second one (an upload of the same
         *     file declared with other parts or part checksums is not that
         *     upload).
         *
         *     Declare each part's SHA-256 too (part_sha256, with part_size, or
         *     the server's 5 MiB parts) and every part URL signs its checksum:
         *     the PUT carries the part's `headers`, and S3 itself refuses a part
         *     cut off or altered on the way instead of keeping it. Without them,
         *     the URLs sign only each part's size.
         */
        post: operations["createUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Which parts S3 holds, with fresh URLs for the others; once completed, the photo. */
        get: operations["getUpload"];
        put?: never;
        post?: never;
        /** Cancel an upload; S3 deletes its parts. Cancelling twice is fine. */
        delete: operations["abortUpload"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join the parts into the photo and accept it as POST /v1/media does.
         * @description Checks the real size, the type from the magic bytes (it must be the
         *     declared one) and the pixel count from the header, with the rules of
         *     POST /v1/media (413, 415, 422; a refused file is deleted and the
         *     upload is over). Parts not received as declared: 409, nothing
         *     joined and no photo made, the upload still open; errors[] names
         *     them all under the field "parts" (code incomplete, "missing: 2,
         *     3"), and each one S3 holds at another size or with another SHA-256
         *     than declared under "parts[N]", N its number (code mismatch).
         *     Send those again (GET the upload for fresh URLs) and complete
         *     again. Otherwise 202 with the
         *     photo pending, exactly as POST /v1/media answers; completing again
         *     answers with the same photo.
         */
        post: operations["completeUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/guides": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The newest guides inside a map viewport (public).
         * @description With a bearer token, the guides of users the caller blocks are left
         *     out, and a page still holds `limit` items when more exist.
         *     Guides whose location is inside the rectangle (edges included),
         *     newest first, `limit` a page; `next_cursor` continues with older
         *     ones, as nearby's does, signed and valid for the same bbox, tag and
         *     q for an hour from the start of the 5 minutes it was issued in
         *     (55–60 minutes), through at most 10,000 guides. A map usually wants
         *     the first page only and, when `truncated`, to zoom in or ask
         *     /v1/guides/clusters. A viewport that crosses the antimeridian
         *     (minLng > maxLng) is refused with 400: send two, split at 180.
         *     Fresh within a second of any write; with a bearer token
         *     `liked_by_me` and `like_count` are read for the page.
         */
        get: operations["listGuidesInViewport"];
        put?: never;
        /**
         * Write a guide.
         * @description One spot (1 m around a point) holds at most 1,000 guides: the next
         *     one there, or a guide moved there with PATCH, is 422 naming lat and
         *     lng. With an Idempotency-Key, a repeat with the same values (key
         *     order and spacing do not matter) answers 201 with the guide the
         *     first created, as it is now; other values are 422, and a repeat
         *     while the first runs is 409.
         */
        post: operations["createGuide"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/guides/nearby": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Guides within a radius, nearest first (public).
         * @description With a bearer token, the guides of users the caller blocks are left
         *     out, and a page still holds `limit` items when more exist.
         *     Sorted by exact distance from (lat, lng), ties by id; the same answer
         *     whether it comes from the cache or the database, fresh within a
         *     second of any write. `next_cursor` continues after the last item
         *     without gaps or repeats; it is signed and only valid for the same
         *     lat, lng, radius_m, tag and q. A cursor lasts an hour from the
         *     start of the 5 minutes it was issued in (55–60 minutes, so that a
         *     page asked twice is the same bytes), and a search pages through at
         *     most 10,000 guides: past either, the cursor is a
         *     400 naming it. With a bearer token `liked_by_me` and `like_count`
         *     are read for the page. Unknown parameters are refused.
         */
        get: operations["listNearbyGuides"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/guides/clusters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Guides counted per grid cell, for low zooms (public).
         * @description With a bearer token the counts, bounds and centroids leave out the
         *     guides of the users the caller blocks (PUT /v1/me/blocks/{user_id}),
         *     at once on every API process.
         *     At zoom z ≤ 13 a cell is 0.01°·2^(13−z) on a side (about 64 pixels of
         *     a 256-pixel map tile); above, 0.01°/2^(z−13). A fractional zoom, as
         *     map SDKs report it, uses the grid of its whole part (12.5 → 12).
         *     Every cell that meets the viewport is returned with all its guides
         *     (with `tag`, those carrying it), also those just outside it, so
         *     clusters do not change as the map pans; over a viewport made of
         *     whole cells the counts add up to what the viewport lists. At most
         *     50,000 cells. Above zoom 13 the viewport's guides are grouped one by
         *     one; a viewport holding more than 5,000 guides (with `tag` too,
         *     whether they carry it or not) is answered on the zoom-13 grid instead
         *     (0.01° cells, exact counts, `expansion_zoom` as for the zoom asked),
         *     so a map over the densest city still gets its clusters.
         *     Coordinates are rounded to 7 decimals.
         */
        get: operations["listGuideClusters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tiles/{z}/{x}/{y}.mvt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Guides and clusters as a Mapbox vector tile (public).
         * @description A web-mercator tile (z/x/y as MapLibre and Mapbox request them,
         *     extent 4096, buffer 64) of the clusters /v1/guides/clusters gives
         *     at zoom z: a cell holding one guide is a point in layer `guides`
         *     (properties `id`, `author_id`, `title`, `like_count`, `thumbhash` once its first
         *     photo is ready, and `tags` as a JSON array in a string), a cell
         *     holding more a point in layer `clusters` at its centroid
         *     (`count`, `expansion_zoom` unless the guides are too close to ever
         *     split, and `top_guide_id` / `top_thumbhash`: the cluster's
         *     most-liked guide, ties going to the newest). Low zooms are mostly
         *     clusters, high zooms mostly guides; a tile holds a few dozen
         *     features whatever the density. A point is in every tile whose
         *     buffer it falls in. `tag` filters both layers. A tile holding
         *     nothing is 204. Tiles are shared and anonymous, so they hold the
         *     guides of users the caller blocks: hide them on the client with a
         *     filter on `author_id` (README: Blocking users).
         */
        get: operations["getGuideTile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/guides/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One guide with its author, photos and exact like count (public).
         * @description A guide by a user the caller blocks is 404 for the caller, as if it did not exist.
         */
        get: operations["getGuide"];
        put?: never;
        post?: never;
        /** Delete a guide (author only). */
        delete: operations["deleteGuide"];
        options?: never;
        head?: never;
        /** Change a guide (author only). */
        patch: operations["updateGuide"];
        trace?: never;
    };
    "/v1/guides/{id}/like": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Like a guide; liking again is a success that changes nothing.
         * @description A user the guide's author blocks gets 403 (forbidden): they can no
         *     longer like the author's guides. Likes given before the block stay,
         *     and unliking them still works. A guide hidden by moderation (or
         *     whose author is suspended) is 404 as a missing guide is, for
         *     everyone but its author, who still reads it and may like it.
         */
        put: operations["likeGuide"];
        post?: never;
        /**
         * Unlike a guide; unliking again is a success that changes nothing.
         * @description A guide hidden by moderation is 404 for everyone but its author, as for a like.
         */
        delete: operations["unlikeGuide"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Problem: {
            type: components["schemas"]["ProblemType"];
            /** @description The same for every problem of a type. */
            title: string;
            status: number;
            detail: string;
            instance?: string;
            request_id?: string;
            /** @description Every bad field of the request, all at once. */
            errors?: components["schemas"]["FieldError"][];
            /** @description For /problems/quota_exceeded: the account quota the request would exceed. */
            quota?: {
                /** @enum {string} */
                name: "photos" | "bytes";
                limit: number;
                used: number;
            };
        };
        /**
         * @description A relative URI naming the error kind, resolving to a page that
         *     describes it: /problems/invalid (400), /problems/unauthorized
         *     (401, sign in again), /problems/token_expired (401, refresh the
         *     access token), /problems/forbidden (403),
         *     /problems/quota_exceeded (403), /problems/not_found (404),
         *     /problems/credentials (401, a log-in's email or password is
         *     wrong: nothing was signed out),
         *     /problems/method_not_allowed (405), /problems/body_timeout (408),
         *     /problems/conflict (409), /problems/too_large (413),
         *     /problems/unsupported (415), /problems/unprocessable (422),
         *     /problems/rate_limited (429), /problems/internal (500),
         *     /problems/unavailable (503).
         * @enum {string}
         */
        ProblemType: "/problems/invalid" | "/problems/unauthorized" | "/problems/token_expired" | "/problems/forbidden" | "/problems/quota_exceeded" | "/problems/not_found" | "/problems/method_not_allowed" | "/problems/body_timeout" | "/problems/conflict" | "/problems/too_large" | "/problems/unsupported" | "/problems/unprocessable" | "/problems/rate_limited" | "/problems/internal" | "/problems/unavailable" | "/problems/credentials";
        FieldError: {
            /** @description The parameter, header or member at fault (tags[2] for a list item); "" for the body as a whole. */
            field: string;
            code: components["schemas"]["FieldErrorCode"];
            /** @description The mistake in English, one wording per mistake. */
            message: string;
            /** @description On a rate_limited entry (every 429 has one, field ""): the limit that refused the request, as RateLimit-Policy names it (signup, guest, login_ip, login_email, refresh_ip, refresh_token, upload, upload_refusals, guide_write, guide_refusals, like, rename, report, block, concurrent_uploads_per_user, concurrent_uploads_per_address, concurrent_bodies_per_address, concurrent_logins_per_address, event_streams_per_user). */
            limit?: string;
        };
        /**
         * @description What is wrong with a field, for a program to act on; the meaning of
         *     a code never changes. required: missing or empty; too_long /
         *     too_short: text outside its length; too_many: a list over its item
         *     limit; too_large: a file, byte or pixel count over the limit;
         *     out_of_range: a number outside its bounds; invalid_format: not of
         *     the expected type or shape (not a number, not JSON, not an id);
         *     invalid_characters: control or bidirectional characters, or not
         *     UTF-8; duplicate: given more than once; unknown_parameter /
         *     unknown_field: not taken by this route (the message lists those it
         *     takes); conflicting: cannot be sent with another field; not_yours:
         *     names no photo of yours (another user's, or none); not_ready: a
         *     photo still processing; failed: a photo that failed processing;
         *     no_location: a photo without GPS; incorrect: a wrong password;
         *     taken: used by another account; expired: a cursor past its
         *     lifetime; mismatch: disagrees with the request or the file;
         *     in_use: an Idempotency-Key held by a request in progress;
         *     unsupported: a type of file or body not taken; incomplete: upload
         *     parts missing; limit_reached: an allowance this request would pass;
         *     not_found: names nothing that exists, or nothing any more (a user id
         *     of no account, a report's target deleted); self: names the caller
         *     where another is wanted (reporting or blocking yourself);
         *     rate_limited: a rate or concurrency limit refused the request (every
         *     429 has one such entry, naming the limit); not_guest: only a guest
         *     can be upgraded; no_password: a guest has no password to change;
         *     wrong_state: clashes with the state of what the request acts on
         *     (every 409 without a field of its own has one).
         * @enum {string}
         */
        FieldErrorCode: "required" | "too_long" | "too_short" | "too_many" | "too_large" | "out_of_range" | "invalid_format" | "invalid_characters" | "duplicate" | "unknown_parameter" | "unknown_field" | "conflicting" | "not_yours" | "not_ready" | "failed" | "no_location" | "incorrect" | "taken" | "expired" | "mismatch" | "in_use" | "unsupported" | "incomplete" | "limit_reached" | "not_found" | "self" | "rate_limited" | "not_guest" | "no_password" | "wrong_state";
        User: {
            id: string;
            /** @description null for guests */
            email: string | null;
            display_name: string;
            guest?: boolean;
            /** Format: date-time */
            created_at: string;
        };
        Session: {
            user: components["schemas"]["User"];
            /** @description Short-lived (TOKEN_TTL, 15 minutes by default); honoured only while its session is live. */
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            /** @description seconds */
            expires_in: number;
            /** @description Single use: POST /v1/auth/refresh exchanges it for a new session answer. Presenting a used one again within REFRESH_GRACE (10 s) gets another working answer (a retry); later, it revokes the session. */
            refresh_token: string;
            /** @description Seconds until the session ends unless refreshed (REFRESH_TTL, 30 days by default). */
            refresh_expires_in: number;
        };
        /**
         * @description A photo, one shape per status (`status` tells them apart):
         *     `pending` and `processing` have no URLs and no ThumbHash yet,
         *     `ready` has all of them, `failed` none and, for its owner, a
         *     `failure`; `hidden` (its owner's view of a photo moderation holds)
         *     none, and says why. sha256, failure, urls.original and capture are shown to
         *     the photo's owner only, and never inside a guide.
         */
        Media: components["schemas"]["MediaInProgress"] | components["schemas"]["MediaReady"] | components["schemas"]["MediaFailed"] | components["schemas"]["MediaHidden"];
        /** @description A photo accepted and not rendered yet: poll it, or wait for its event. */
        MediaInProgress: {
            object: components["schemas"]["MediaObject"];
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            status: "pending" | "processing";
            content_type: components["schemas"]["PhotoType"];
            /** @description Size of the original. */
            bytes: number;
            /** @description Displayed width, after EXIF orientation. */
            width: number;
            /** @description Displayed height, after EXIF orientation. */
            height: number;
            sha256?: components["schemas"]["MediaSHA256"];
            thumbhash: null;
            urls: {
                web: null;
                thumbnail: null;
                marker: null;
                original?: components["schemas"]["OriginalURL"];
                /** @description []: variants come once the photo is ready. */
                variants?: unknown[];
            };
            capture?: components["schemas"]["Capture"];
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description When an earlier attempt finished (a failed photo tried again), else null.
             */
            processed_at: string | null;
        };
        /** @description A rendered photo: its derivatives, sizes and placeholder are all there. */
        MediaReady: {
            object: components["schemas"]["MediaObject"];
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            status: "ready";
            content_type: components["schemas"]["PhotoType"];
            /** @description Size of the original. */
            bytes: number;
            /** @description Displayed width, after EXIF orientation. */
            width: number;
            /** @description Displayed height, after EXIF orientation. */
            height: number;
            sha256?: components["schemas"]["MediaSHA256"];
            /** @description Base64 ThumbHash placeholder, to show while the image loads. */
            thumbhash: string;
            /**
             * @description Derivative URLs: under MEDIA_PUBLIC_BASE_URL when it is set (they
             *     never expire); else presigned as of the start of the current
             *     hour and valid for two hours, so a URL stays the same all hour
             *     (caches keep working) and has at least an hour left when
             *     handed out.
             */
            urls: {
                /** @description JPEG within 2048×2048, no metadata. */
                web: string;
                /** @description JPEG within 1080×1080, no metadata. */
                thumbnail: string;
                /** @description Square JPEG for a map pin: the photo's centred square, 256×256 (a photo whose shorter side is under 256 px gets that side; no derivative is ever larger than the photo); no metadata. Null only for a photo made ready before markers existed, until a worker has rendered its marker. */
                marker: string | null;
                original?: components["schemas"]["OriginalURL"];
                /** @description Every derivative in every format rendered (MEDIA_FORMATS: JPEG always, WebP by default, AVIF when asked), smallest first. For a srcset, take the kinds other than marker in one format. A photo processed before variants existed lists its JPEGs until the back-fill has rendered the rest. Under MEDIA_PUBLIC_BASE_URL the names carry a content version and the objects are served with Cache-Control: public, max-age=31536000, immutable; presigned URLs stay the same for at least an hour. */
                variants?: components["schemas"]["MediaVariant"][];
            };
            capture?: components["schemas"]["Capture"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at: string;
        };
        /** @description A photo that could not be rendered; its owner sees why in `failure`. */
        MediaFailed: {
            object: components["schemas"]["MediaObject"];
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            status: "failed";
            content_type: components["schemas"]["PhotoType"];
            /** @description Size of the original. */
            bytes: number;
            /** @description Displayed width, after EXIF orientation, when the header could be read (else 0). */
            width: number;
            /** @description Displayed height, after EXIF orientation, when the header could be read (else 0). */
            height: number;
            sha256?: components["schemas"]["MediaSHA256"];
            thumbhash: null;
            urls: {
                web: null;
                thumbnail: null;
                marker: null;
                original?: components["schemas"]["OriginalURL"];
                /** @description []: variants come once the photo is ready. */
                variants?: unknown[];
            };
            /** @description Why the photo failed, in words for its owner; owner only. */
            failure?: string;
            capture?: components["schemas"]["Capture"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at: string;
        };
        /**
         * @description Names the object, so that an answer that is a photo or an upload (POST /v1/uploads) tells which it is.
         * @enum {string}
         */
        MediaObject: "media";
        /**
         * @description Of the original, from its magic bytes.
         * @enum {string}
         */
        PhotoType: "image/jpeg" | "image/png" | "image/webp" | "image/heic";
        /** @description Hex SHA-256 of the original, computed by the server; owner only. */
        MediaSHA256: string;
        /** @description Presigned URL of the original, valid for 15 minutes from the answer; present only for its owner. */
        OriginalURL: string;
        /** @description Where and when the photo was taken, read from the original's EXIF once processed; owner only. Each field is null when the photo does not say. */
        Capture: {
            /**
             * Format: date-time
             * @description DateTimeOriginal, with OffsetTimeOriginal when the camera wrote it (else read as UTC).
             */
            taken_at: string | null;
            lat: number | null;
            lng: number | null;
        };
        /** @description A photo moderation holds off every public surface, as its owner sees it (everyone else gets 404): no derivative URLs, since a URL handed out could be passed on; `hidden` says why. */
        MediaHidden: {
            object: components["schemas"]["MediaObject"];
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            status: "hidden";
            content_type: components["schemas"]["PhotoType"];
            /** @description Size of the original. */
            bytes: number;
            width: number;
            height: number;
            sha256?: components["schemas"]["MediaSHA256"];
            thumbhash: string | null;
            urls: {
                web: null;
                thumbnail: null;
                marker: null;
                original?: components["schemas"]["OriginalURL"];
                /** @description []: variants come once the photo is ready. */
                variants?: unknown[];
            };
            failure?: string;
            capture?: components["schemas"]["Capture"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at: string | null;
            hidden: components["schemas"]["Hold"];
        };
        /** @description Present only while moderation holds a guide or photo off every public surface, and only to its author (everyone else gets 404). A hidden photo has no derivative URLs. */
        Hold: {
            /** @description The moderator's reason, or why reports held it automatically. */
            reason: string;
            /** Format: date-time */
            hidden_at: string;
        };
        MediaVariant: {
            /**
             * @description marker: the centred square (at most 256 px); small, thumbnail, web: the whole photo within 540, 1080 and 2048 px. None is larger than the photo.
             * @enum {string}
             */
            kind: "marker" | "small" | "thumbnail" | "web";
            /** @enum {string} */
            format: "jpeg" | "webp" | "avif";
            width: number;
            height: number;
            url: string;
            /** @description Size of the file; null for the JPEGs of a photo processed before variants. */
            bytes: number | null;
        };
        GuideInput: {
            /** @description Trimmed; no control characters. */
            title: string;
            body?: string;
            /** @description Required unless location_from_media_id is sent. */
            lat?: number;
            /** @description Required unless location_from_media_id is sent. */
            lng?: number;
            /** @description Instead of lat and lng: pin the guide where this photo of the author's was taken, read from its header when the upload was accepted (so a photo still pending works). A photo that is not the author's (not_yours) or has no GPS in its metadata (no_location) is a 422 naming this field. */
            location_from_media_id?: string;
            /** @description The author's own photos (POST /v1/media), in display order, each once. Another user's or an unknown id is a 400 naming media_ids[i] with code not_yours (a failed photo: failed), reported together with every other bad field. */
            media_ids?: string[];
            /** @description Stored trimmed and lower-case; repeats are dropped. */
            tags?: string[];
        };
        /** @description Any subset of the GuideInput fields; an absent or null field stays as it is. */
        GuidePatch: {
            title?: string;
            body?: string;
            lat?: number;
            lng?: number;
            /** @description Move the guide to where this photo of the author's was taken (see GuideInput). */
            location_from_media_id?: string;
            media_ids?: string[];
            tags?: string[];
        };
        Guide: {
            id: string;
            author: components["schemas"]["Author"];
            title: string;
            body: string;
            /** @description Rounded to 7 decimals. */
            lat: number;
            /** @description Rounded to 7 decimals. */
            lng: number;
            tags: string[];
            /** @description In the author's order; the same objects as GET /v1/media/{id} (urls.original is never included here). */
            media: components["schemas"]["Media"][];
            /** @description Exact. */
            like_count: number;
            /** @description false without a bearer token */
            liked_by_me: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            hidden?: components["schemas"]["Hold"];
        };
        Author: {
            id: string;
            /** @description As it is now: a rename shows in every list at once. */
            display_name: string;
        };
        /** @description A guide's first photo, as much of the Media object as a card and a map pin need, under the same names. */
        Cover: {
            /** @description GET /v1/media/{id} (or several at once with GET /v1/media?ids=) has the rest, its variants' own URLs among it. */
            id: string;
            /** @enum {string} */
            status: "pending" | "processing" | "ready" | "failed";
            /** @description null until ready. */
            thumbhash: string | null;
            /** @description The photo's displayed width, after EXIF orientation, as Media's; null until ready. */
            width: number | null;
            /** @description The photo's displayed height; null until ready. */
            height: number | null;
            /**
             * @description Lists stay light (within 1.3× of their bytes before covers had
             *     sizes and markers; README, "Lists and search"). A presigned URL
             *     is about 400 bytes with a signature of its own, so with
             *     presigned URLs a list carries one, the thumbnail's, and
             *     `marker` is the variant's short API path,
             *     `/v1/media/{id}/marker.jpg` (relative: resolve it against the
             *     API's base URL), which answers 302 to a presigned URL
             *     (getMediaVariant). Under MEDIA_PUBLIC_BASE_URL `marker` is the
             *     object's public URL. In both modes `formats` says which
             *     formats exist, and the variant of kind K (marker, small,
             *     thumbnail, web) in format F is the marker URL with its file
             *     name replaced by `K.E`, E being F's extension (jpg for jpeg,
             *     webp, avif), e.g. `new URL("small.webp", new
             *     URL(cover.urls.marker, apiBase))`. Its size is the photo's
             *     (width × height) fitted within 540, 1080 and 2048 px for
             *     small, thumbnail and web, never enlarged; the marker is the
             *     centred square of at most 256 px. The objects are Media's,
             *     with the same lifetime and caching.
             */
            urls: {
                /** @description JPEG within 1080×1080; null until ready. */
                thumbnail: string | null;
                /** @description Square JPEG for a map pin, as Media's: with presigned URLs its API path /v1/media/{id}/marker.jpg (relative, 302 to a presigned URL), under MEDIA_PUBLIC_BASE_URL its public URL. Null until ready, and for a photo processed before variants existed until the back-fill has rendered it. */
                marker: string | null;
                /** @description The formats every kind of the cover is stored in (jpeg first), given with `marker`: each variant's URL is made from the marker's. Null when `marker` is. */
                formats: ("jpeg" | "webp" | "avif")[] | null;
            };
        };
        GuideItem: {
            id: string;
            author: components["schemas"]["Author"];
            title: string;
            /** @description Rounded to 7 decimals. */
            lat: number;
            /** @description Rounded to 7 decimals. */
            lng: number;
            /** @description Nearby only: great-circle metres from the query point on PostGIS's WGS84 mean sphere (within 0.5% of the geodesic), to the centimetre. */
            distance_m?: number;
            /** @description Exact with a bearer token (read for the page, so the caller's own like or unlike shows at once); without one it may lag by about a second (GUIDES_CACHE_LIKE_POLL). */
            like_count: number;
            /** @description Whether the caller likes the guide, read for the page; false without a bearer token. */
            liked_by_me: boolean;
            /** @description Photos the guide shows, in any status (hidden ones excepted). */
            photo_count: number;
            tags: string[];
            /** @description The first photo not hidden by moderation; null when the guide has none. */
            cover: components["schemas"]["Cover"] | null;
            /** Format: date-time */
            created_at: string;
            hidden?: components["schemas"]["Hold"];
        };
        GuidePage: {
            items: components["schemas"]["GuideItem"][];
            /** @description null on the last page; else send it as `cursor`. */
            next_cursor: string | null;
        };
        Block: {
            user: components["schemas"]["Author"];
            /**
             * Format: date-time
             * @description When the block was first made.
             */
            created_at: string;
        };
        BlockPage: {
            items: components["schemas"]["Block"][];
            /** @description null on the last page; else send it as `cursor`. */
            next_cursor: string | null;
        };
        NearbyPage: {
            items: components["schemas"]["GuideItem"][];
            /** @description null on the last page; else send it as `cursor`. */
            next_cursor: string | null;
            /** @description More guides are within the radius than this page holds (next_cursor then continues), as the viewport page says. */
            truncated: boolean;
        };
        MediaPage: {
            items: components["schemas"]["Media"][];
            /** @description null on the last page; else send it as `cursor`. */
            next_cursor: string | null;
        };
        LikeState: {
            liked_by_me: boolean;
            /** @description Exact, after this like or unlike. */
            like_count: number;
        };
        /** @description What POST /v1/uploads declares: the file, and optionally its parts. */
        UploadDeclaration: {
            bytes: number;
            /** @description Of the whole file; the worker checks it, and a photo whose bytes differ fails. */
            sha256: string;
            /** @enum {string} */
            content_type: "image/jpeg" | "image/png" | "image/webp" | "image/heic" | "image/heif";
            /** @description Every part but the last has this size (S3's bounds: 5 MiB to 5 GiB). Default: the server's, 5 MiB. */
            part_size?: number;
            /**
             * @description Each part's SHA-256 in hex, in order: one per part of
             *     part_size bytes, ceil(bytes / part_size) in all (else
             *     400 naming part_sha256, or part_sha256[i] for a
             *     malformed one). The part URLs then sign them.
             */
            part_sha256?: string[];
        };
        UploadPart: {
            number: number;
            /** @description Exactly this many bytes: the size is signed into the URL. */
            bytes: number;
            /** @description A presigned S3 URL: PUT the part's bytes there, with the `headers` given (if any) and no other header needed, until the upload's urls_expire_at. */
            url: string;
            /**
             * @description Only when the upload declared part checksums (part_sha256): the
             *     headers signed into the URL, which the PUT must carry as they
             *     are (today `x-amz-checksum-sha256`, the part's SHA-256 in
             *     base64). S3 then hashes what arrives and refuses a part cut off
             *     or altered on the way (400, or a reset connection), keeping
             *     nothing of it; a PUT without them is 403.
             */
            headers?: {
                [key: string]: string;
            };
            /** @description Received parts only: the MD5 of the bytes S3 holds for the part, in quotes. */
            etag?: string;
        };
        Upload: {
            /**
             * @description Names the object: POST /v1/uploads answers an upload or, for a file you already have, a photo (`object` is `media`).
             * @enum {string}
             */
            object: "upload";
            id: string;
            /** @enum {string} */
            state: "open" | "completing" | "completed" | "aborted";
            bytes: number;
            sha256: string;
            content_type: components["schemas"]["PhotoType"];
            /** @description Every part but the last has this size: the declared part_size, or the server's (5 MiB). */
            part_size: number;
            /**
             * @description The parts still to send, in order, with fresh URLs: those S3 does
             *     not hold, and those it holds at another size than declared or,
             *     when part checksums were declared, with another SHA-256.
             */
            parts: components["schemas"]["UploadPart"][];
            /**
             * @description The parts S3 holds as declared, each with its ETag (the MD5 of
             *     what arrived) and a URL to send it again. With part checksums
             *     declared, S3 verified each one's SHA-256 and these are whole.
             *     Without, compare each ETag with your part's MD5 and send a part
             *     again when they differ: S3 keeps no part whose PUT was cut off,
             *     but some S3-compatible servers (versitygw) keep one zero-filled
             *     at its full size. The worker checks the whole file's SHA-256
             *     anyway.
             */
            received: components["schemas"]["UploadPart"][];
            /**
             * Format: date-time
             * @description When the URLs of this answer stop working (UPLOAD_URL_TTL, an hour, after it); null when it holds none. GET /v1/uploads/{id} gives fresh ones.
             */
            urls_expire_at: string | null;
            /**
             * Format: date-time
             * @description Not completed by then, the upload is aborted and its parts deleted (UPLOAD_TTL, 24 hours by default).
             */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** @description Once completed: the photo. */
            media: components["schemas"]["Media"] | null;
        };
        /** @description GET /readyz: the server's state and each dependency's. */
        Readiness: {
            /** @enum {string} */
            status: "ready" | "degraded" | "unavailable" | "draining";
            /** @description Each dependency by name (postgres, redis, s3). */
            checks: {
                [key: string]: "ok" | "unavailable";
            };
        };
        /** @description GET /v1/media?ids=: the photos found, in the order asked, and the ids that name none. */
        MediaBatch: {
            items: components["schemas"]["Media"][];
            not_found: string[];
        };
        /** @description One page of the guides inside a viewport, newest first. */
        ViewportPage: {
            items: components["schemas"]["GuideItem"][];
            /** @description null on the last page; else send it as `cursor`. */
            next_cursor: string | null;
            /** @description More guides are inside than this page holds: the same as next_cursor not being null. */
            truncated: boolean;
        };
        /** @description minLng, minLat, maxLng, maxLat. */
        Bounds: [
            number,
            number,
            number,
            number
        ];
        Cluster: {
            /** @description Centroid; the guide's own location when count is 1. */
            lat: number;
            lng: number;
            count: number;
            /** @description Only when count is 1. */
            guide_id?: string;
            /** @description The lowest zoom at which these guides fall in more than one cell: zoom the map there and this cluster splits. null for a single guide, and for guides too close together to split at zoom 22 (show them as a list). */
            expansion_zoom: number | null;
            /** @description Of the guides themselves, rounded outwards: fit the map to it to open the cluster. */
            bounds: components["schemas"]["Bounds"];
        };
        /** @description GET /v1/guides/clusters: every cell of the grid at that zoom that meets the viewport. */
        ClusterList: {
            clusters: components["schemas"]["Cluster"][];
        };
        /** @description The layers of GET /v1/tiles/{z}/{x}/{y}.mvt, each a list of point features by their properties (a layer with no feature is left out). */
        TileLayers: {
            guides?: components["schemas"]["TileGuideProperties"][];
            clusters?: components["schemas"]["TileClusterProperties"][];
        };
        /** @description The properties of a point in layer `guides` of GET /v1/tiles/{z}/{x}/{y}.mvt: a cell holding one guide. */
        TileGuideProperties: {
            /** @description The guide: GET /v1/guides/{id}. */
            id: string;
            title: string;
            like_count: number;
            /** @description Of the guide's first photo, once it is ready; absent before. */
            thumbhash?: string;
            /** @description The tags as a JSON array in a string (a vector tile holds no lists): `["food","night"]`. */
            tags: string;
        };
        /** @description The properties of a point in layer `clusters` of GET /v1/tiles/{z}/{x}/{y}.mvt: a cell holding several guides, at their centroid. */
        TileClusterProperties: {
            count: number;
            /** @description As in /v1/guides/clusters; absent when the guides are too close to ever split. */
            expansion_zoom?: number;
            /** @description The cluster's most-liked guide, ties going to the newest. */
            top_guide_id: string;
            /** @description The ThumbHash of that guide's first photo, when ready; absent otherwise. */
            top_thumbhash?: string;
        };
        /**
         * @description One event of GET /v1/events, as its `id:`, `event:` and `data:`
         *     lines carry it (data is one line of JSON). `media.ready` and
         *     `media.failed` carry an id; `resync` does not.
         */
        Event: components["schemas"]["MediaEvent"] | components["schemas"]["ModerationEvent"] | components["schemas"]["ResyncEvent"] | components["schemas"]["EndEvent"];
        /**
         * @description A moderator (or an automatic hold) acted on the caller's guide,
         *     photo or account: the data is the audit log entry.
         */
        ModerationEvent: {
            id: string;
            /** @enum {string} */
            event: "moderation.action";
            data: components["schemas"]["ModerationAction"];
        };
        ReportInput: {
            /** @enum {string} */
            target_type: "guide" | "photo" | "user";
            /** @description A guide, photo or user id. One that does not exist (or was deleted) is a 404 naming target_id (code not_found); yourself or your own content a 422 (code self). */
            target_id: string;
            /** @enum {string} */
            reason: "spam" | "sexual" | "violence" | "harassment" | "illegal" | "privacy" | "other";
            /** @description Free text for the moderator; may span lines. */
            note?: string;
        };
        Report: {
            id: string;
            /** @enum {string} */
            target_type: "guide" | "photo" | "user";
            target_id: string;
            /** @enum {string} */
            reason: "spam" | "sexual" | "violence" | "harassment" | "illegal" | "privacy" | "other";
            note: string;
            /** @enum {string} */
            status: "open" | "closed";
            /**
             * @description The action that closed the report; null while open.
             * @enum {string|null}
             */
            outcome: "hide" | "restore" | "remove" | "suspend" | "unsuspend" | "dismiss" | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            closed_at: string | null;
        };
        ReportPage: {
            items: components["schemas"]["Report"][];
            next_cursor: string | null;
        };
        QueueItem: {
            /** @enum {string} */
            target_type: "guide" | "photo" | "user";
            target_id: string;
            /** @description The target as it stands now. */
            target: {
                /** @description A guide's author, a photo's owner, a user's own id; null once deleted. */
                author_id: string | null;
                /** @description A guide's title, a user's display name; empty for a photo. */
                label: string;
                hidden: components["schemas"]["Hold"] | null;
                suspended: boolean;
                /** @description Deleted since it was reported (by its owner): dismiss the reports. */
                deleted: boolean;
            };
            /** @description Distinct accounts with an open report. */
            reporters: number;
            /** @description Every reason given, the most given first. */
            reasons: string[];
            /** Format: date-time */
            oldest_report_at: string;
            /** Format: date-time */
            newest_report_at: string;
        };
        QueuePage: {
            items: components["schemas"]["QueueItem"][];
            next_cursor: string | null;
        };
        ActionInput: {
            /**
             * @description hide, restore, remove: a guide or photo. suspend, unsuspend: a
             *     user. dismiss: any target (closes its open reports and lifts an
             *     automatic hold). Another pairing is a 400 naming target_type.
             * @enum {string}
             */
            action: "hide" | "restore" | "remove" | "suspend" | "unsuspend" | "dismiss";
            /** @enum {string} */
            target_type: "guide" | "photo" | "user";
            target_id: string;
            /** @description Recorded in the audit log; a hide's reason is what the author sees. */
            reason: string;
        };
        ModerationAction: {
            id: string;
            /** @description null for an automatic hold by reports. */
            moderator_id: string | null;
            /** @enum {string} */
            action: "hide" | "restore" | "remove" | "suspend" | "unsuspend" | "dismiss";
            /** @enum {string} */
            target_type: "guide" | "photo" | "user";
            target_id: string;
            target_author_id: string | null;
            reason: string;
            /** @description The open reports the action closed (an automatic hold: the distinct reporters that triggered it; their reports stay open for a moderator). */
            reports: number;
            /** Format: date-time */
            created_at: string;
        };
        AuditPage: {
            items: components["schemas"]["ModerationAction"][];
            next_cursor: string | null;
        };
        About: {
            name: string;
            /** @description MODERATION_CONTACT: where users and stores reach the operator (an email address or URL); null when unset. */
            contact: string | null;
            report_reasons: string[];
        };
        /**
         * @description A photo of the caller's finished. The name is the photo's status when
         *     the event is sent, and the data the photo as GET /v1/media/{id}
         *     answers its owner then (a photo deleted, or uploaded again and
         *     pending, by then sends nothing). An event may come twice (a photo
         *     processed twice): the data tells.
         */
        MediaEvent: {
            /** @description Increases with every event of the account; send the last one seen as Last-Event-ID to resume. */
            id: string;
            /** @enum {string} */
            event: "media.ready" | "media.failed";
            data: components["schemas"]["Media"];
        };
        /**
         * @description Sent first when Last-Event-ID is older than what the server keeps
         *     (EVENTS_RESUME_WINDOW, 5 minutes by default, at most 256 events), or
         *     not one of this account's: events may have been missed, so reload
         *     what the screen shows (GET /v1/media/{id}); the events the server
         *     still keeps follow.
         */
        ResyncEvent: {
            /** @enum {string} */
            event: "resync";
            data: Record<string, never>;
        };
        UploadList: {
            items: components["schemas"]["Upload"][];
        };
        /**
         * @description The stream's last event, sent just before the server closes it for
         *     a reason: token_expired (refresh the access token, then reconnect
         *     with Last-Event-ID), session_revoked (the session ended: sign in
         *     again), draining (the server is shutting down: reconnect at once,
         *     another server answers). A stream that ends without it was cut by
         *     the network or a failing dependency: reconnect.
         */
        EndEvent: {
            /** @enum {string} */
            event: "end";
            data: {
                /** @enum {string} */
                reason: "token_expired" | "session_revoked" | "draining";
            };
        };
        /** @description A single-use ticket for GET /v1/events?ticket=, for clients that cannot send a header on a stream (EventSource). */
        EventTicket: {
            /** @description Opaque; works once. */
            ticket: string;
            /**
             * Format: date-time
             * @description 60 seconds after it was issued.
             */
            expires_at: string;
        };
    };
    responses: {
        /** @description The answer named by If-None-Match is still current. */
        NotModified: {
            headers: {
                ETag: components["headers"]["ETag"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content?: never;
        };
        /** @description An error. */
        Problem: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body stalled or arrived slower than the server's minimum rate (/problems/body_timeout); the connection is closed. Any request's body is held to it, whatever the route. */
        BodyTimeout: {
            headers: {
                Connection?: "close";
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request headers are over the HTTP server's limit (1 MiB); Go's HTTP server answers in plain text before any route runs. */
        HeadersTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
        /**
         * @description Too many requests (/problems/rate_limited): a rate limit of this
         *     address or account, or too many at once: uploads per account or
         *     address, request bodies still arriving from this address (both
         *     without the RateLimit headers, and with `Connection: close`).
         */
        RateLimited: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: {
        /** @description A repeat with the same body replays the first answer for 24 hours (Idempotent-Replayed: true); with another body 422; while the first runs 409. */
        IdempotencyKey: string;
        /** @description The previous page's next_cursor. */
        Cursor: string;
        /**
         * @description Words every guide found holds in its title, body or tags
         *     (PostgreSQL full text, `simple` configuration). Words in Latin
         *     script match whole words, and from three letters also as prefixes
         *     (palace finds palaces). Hangul matches by syllable pairs, so a word
         *     is found inside compounds and before particles (카페 finds
         *     서울카페에서); a single syllable matches words that start or end
         *     with it (집 finds 우리집). Order and paging are unchanged: nearest
         *     first, newest first. Answered by the database's full-text index,
         *     never from the tile cache, so cached and uncached answers are the
         *     same. At most 8 search terms (each is one more list of the index
         *     to read): a word of letters or digits is one term, a Hangul word of
         *     n syllables n−1 (its syllable pairs); more is 400 naming `q` with
         *     `too_many`.
         * @example 카페
         */
        SearchText: string;
        /** @description The ETag of the answer you hold: while the guides it was built from are unchanged the answer is 304, decided from the server's memory without a database query. */
        IfNoneMatch: string;
    };
    requestBodies: never;
    headers: {
        /** @description true when the answer replays an earlier request with the same Idempotency-Key. */
        "Idempotent-Replayed": "true";
        /** @description Strong entity tag naming the state of the guides (their tile versions and like counts) this answer was built from; it changes on every server process within a second of a guide being created, moved, edited, deleted or liked in the area. Absent while the server cannot name that state (its cache is off or catching up), when a write landed while the answer was built, and on lists asked with a bearer token (their liked_by_me and counts are the caller's). A compressed answer's tag carries the coding (`"…-gzip"`). */
        ETag: string;
        /** @description `public, no-cache`: keep the answer, but revalidate it (If-None-Match) before each use; `private, no-cache` on an answer to a signed-in caller (every answer to one is `private` or `no-store`: no shared cache keeps it). */
        "Cache-Control": string;
        /** @description Seconds to wait before trying again. */
        "Retry-After": number;
        /** @description The limit: its name, quota q and window w in seconds, e.g. `"upload";q=120;w=3600`. */
        "RateLimit-Policy": string;
        /** @description What is left of it: remaining r, and t seconds until the whole quota is back, e.g. `"upload";r=0;t=1800`. */
        RateLimit: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready or degraded */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            /** @description PostgreSQL is unavailable or the server is draining */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["Problem"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getOpenAPIDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getMapPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description not modified (If-None-Match) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getMapPageFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example map.js */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                };
            };
            /** @description not modified (If-None-Match) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["Problem"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getMapPageVendoredFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example maplibre-gl.mjs */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                    "application/json": Record<string, never>;
                    "text/plain": string;
                };
            };
            /** @description not modified (If-None-Match) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["Problem"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    listProblemTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the list, each linking to its page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    getProblemType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example invalid */
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            404: components["responses"]["Problem"];
            431: components["responses"]["HeadersTooLarge"];
        };
    };
    signup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                    display_name: string;
                };
            };
        };
        responses: {
            /** @description created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    createGuest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the user */
            200: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Problem"];
        };
    };
    deleteMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description closed; the rest is removed in the background */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
        };
    };
    updateMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    display_name?: string;
                };
            };
        };
        responses: {
            /** @description the account as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    listMyGuides: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GuidePage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    getAbout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description about this service */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["About"];
                };
            };
            400: components["responses"]["Problem"];
        };
    };
    fileReport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReportInput"];
            };
        };
        responses: {
            /** @description the report (new, or the caller's open one on the target) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Report"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    listMyReports: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReportPage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    moderationQueue: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueuePage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    moderationAction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActionInput"];
            };
        };
        responses: {
            /** @description the audit log entry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModerationAction"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    moderationAudit: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    listMyBlocks: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlockPage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    blockUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description blocked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Block"];
                };
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    unblockUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description not blocked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    listMyMedia: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaPage"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    refreshSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    refresh_token: string;
                };
            };
        };
        responses: {
            /** @description the next session answer (same session, same user) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description logged out */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    current_password: string;
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description changed; a new session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    upgradeGuest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                    display_name: string;
                };
            };
        };
        responses: {
            /** @description upgraded; a new session for the full account */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    getMediaBatch: {
        parameters: {
            query: {
                /**
                 * @description Photo ids separated by commas, 1 to 100; a malformed one is 400 naming ids[i].
                 * @example 019be961-e7b5-71fc-b723-d1d3a0f0c268,019be961-e7b5-71fc-b723-d1d3a0f0c269
                 */
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the photos */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaBatch"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    uploadMedia: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description Exactly one file part.
                     */
                    file: Blob;
                };
            };
        };
        responses: {
            /** @description the owner had uploaded the same bytes before; the existing photo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"];
                };
            };
            /** @description accepted; status pending */
            202: {
                headers: {
                    /** @description /v1/media/{id} */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            /** @description over a storage quota (/problems/quota_exceeded, with `quota`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description the body stalled or arrived slower than the minimum rate (/problems/body_timeout); the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    getMedia: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the photo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"];
                };
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
        };
    };
    deleteMedia: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
        };
    };
    getMediaVariant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                /** @description `<kind>.<ext>`, the variant's file name: kind marker, small, thumbnail or web; ext jpg, webp or avif (e.g. marker.jpg, small.webp). */
                variant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the variant is at Location */
            302: {
                headers: {
                    /** @description The variant's URL: presigned, or under MEDIA_PUBLIC_BASE_URL. */
                    Location?: string;
                    /** @description private, max-age=N: how long the redirect may be reused. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `variant` is not `<kind>.<ext>` (errors[] names variant, invalid_format). */
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            /** @description No such photo for the caller (missing, deleted, hidden, or of a user the caller blocks), or the photo has no such variant: then errors[] names variant with not_found (a format the server does not render; a photo rendered before variants has JPEGs only until the back-fill). */
            404: components["responses"]["Problem"];
            /** @description The photo has no variants: errors[] names id with not_ready (still being processed: show its thumbhash, ask again once ready) or failed (it never will). */
            409: components["responses"]["Problem"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description A ticket from POST /v1/events/ticket, instead of the Authorization header. */
                ticket?: string;
            };
            header?: {
                /** @description The id of the last event received, to resume after it. */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the stream; each event as the Event schema describes it, written as SSE lines */
            200: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["Event"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            /** @description the server is shutting down or holds as many streams as it can (with Retry-After); reconnect */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createEventTicket: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the ticket */
            201: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTicket"];
                };
            };
            401: components["responses"]["Problem"];
            /** @description tickets are unavailable (Redis down); send the Authorization header on the stream instead */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUploads: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the open uploads */
            200: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadList"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            503: components["responses"]["Problem"];
        };
    };
    createUpload: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadDeclaration"];
            };
        };
        responses: {
            /** @description you already have a photo with this SHA-256 (the Media, Location /v1/media/{id}): nothing to send; or an upload of this file (same SHA-256 and bytes) is open (the Upload, Location /v1/uploads/{id}), with fresh URLs: send what it lacks */
            200: {
                headers: {
                    /** @description /v1/media/{id} or /v1/uploads/{id} */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"] | components["schemas"]["Upload"];
                };
            };
            /** @description the upload; send its parts */
            201: {
                headers: {
                    /** @description /v1/uploads/{id} */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            /** @description over a storage quota, open uploads included (/problems/quota_exceeded, with `quota`), as POST /v1/media */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["Problem"];
        };
    };
    getUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the upload */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            401: components["responses"]["Problem"];
            /** @description not yours, unknown, or expired */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            503: components["responses"]["Problem"];
        };
    };
    abortUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description cancelled */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            /** @description already completed (delete the photo instead) or being completed */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            503: components["responses"]["Problem"];
        };
    };
    completeUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the same bytes had arrived another way first; that photo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"];
                };
            };
            /** @description accepted; status pending */
            202: {
                headers: {
                    /** @description /v1/media/{id} */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Media"];
                };
            };
            401: components["responses"]["Problem"];
            /** @description the photo would take the account past a storage quota (/problems/quota_exceeded, with `quota`); the file is deleted and the upload is over */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            404: components["responses"]["Problem"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            /** @description the account's upload rate is spent; the upload stays open, complete it again after Retry-After */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            503: components["responses"]["Problem"];
        };
    };
    listGuidesInViewport: {
        parameters: {
            query: {
                /**
                 * @description minLng,minLat,maxLng,maxLat
                 * @example 126.96,37.55,127.00,37.58
                 */
                bbox: string;
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
                tag?: string;
                /**
                 * @description Words every guide found holds in its title, body or tags
                 *     (PostgreSQL full text, `simple` configuration). Words in Latin
                 *     script match whole words, and from three letters also as prefixes
                 *     (palace finds palaces). Hangul matches by syllable pairs, so a word
                 *     is found inside compounds and before particles (카페 finds
                 *     서울카페에서); a single syllable matches words that start or end
                 *     with it (집 finds 우리집). Order and paging are unchanged: nearest
                 *     first, newest first. Answered by the database's full-text index,
                 *     never from the tile cache, so cached and uncached answers are the
                 *     same. At most 8 search terms (each is one more list of the index
                 *     to read): a word of letters or digits is one term, a Hangul word of
                 *     n syllables n−1 (its syllable pairs); more is 400 naming `q` with
                 *     `too_many`.
                 * @example 카페
                 */
                q?: components["parameters"]["SearchText"];
            };
            header?: {
                /** @description The ETag of the answer you hold: while the guides it was built from are unchanged the answer is 304, decided from the server's memory without a database query. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ViewportPage"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
        };
    };
    createGuide: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same body replays the first answer for 24 hours (Idempotent-Replayed: true); with another body 422; while the first runs 409. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GuideInput"];
            };
        };
        responses: {
            /** @description created, or replayed under the same Idempotency-Key */
            201: {
                headers: {
                    /** @description /v1/guides/{id} */
                    Location?: string;
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Guide"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            /** @description a replay whose guide was deleted since */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            408: components["responses"]["BodyTimeout"];
            409: components["responses"]["Problem"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    listNearbyGuides: {
        parameters: {
            query: {
                lat: number;
                lng: number;
                radius_m?: number;
                /** @description The same default and maximum as the viewport's (GET /v1/guides). */
                limit?: number;
                /** @description The previous page's next_cursor. */
                cursor?: components["parameters"]["Cursor"];
                tag?: string;
                /**
                 * @description Words every guide found holds in its title, body or tags
                 *     (PostgreSQL full text, `simple` configuration). Words in Latin
                 *     script match whole words, and from three letters also as prefixes
                 *     (palace finds palaces). Hangul matches by syllable pairs, so a word
                 *     is found inside compounds and before particles (카페 finds
                 *     서울카페에서); a single syllable matches words that start or end
                 *     with it (집 finds 우리집). Order and paging are unchanged: nearest
                 *     first, newest first. Answered by the database's full-text index,
                 *     never from the tile cache, so cached and uncached answers are the
                 *     same. At most 8 search terms (each is one more list of the index
                 *     to read): a word of letters or digits is one term, a Hangul word of
                 *     n syllables n−1 (its syllable pairs); more is 400 naming `q` with
                 *     `too_many`.
                 * @example 카페
                 */
                q?: components["parameters"]["SearchText"];
            };
            header?: {
                /** @description The ETag of the answer you hold: while the guides it was built from are unchanged the answer is 304, decided from the server's memory without a database query. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one page */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NearbyPage"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
        };
    };
    listGuideClusters: {
        parameters: {
            query: {
                /** @description minLng,minLat,maxLng,maxLat */
                bbox: string;
                /** @example 12.5 */
                zoom: number;
                tag?: string;
            };
            header?: {
                /** @description The ETag of the answer you hold: while the guides it was built from are unchanged the answer is 304, decided from the server's memory without a database query. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the clusters */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClusterList"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["Problem"];
        };
    };
    getGuideTile: {
        parameters: {
            query?: {
                tag?: string;
            };
            header?: {
                /** @description The ETag of the answer you hold: while the guides it was built from are unchanged the answer is 304, decided from the server's memory without a database query. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                z: number;
                /** @description 0 ≤ x < 2^z */
                x: number;
                /** @description 0 ≤ y < 2^z */
                y: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the tile */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.mapbox-vector-tile": Blob;
                };
            };
            /** @description nothing in this tile */
            204: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["Problem"];
        };
    };
    getGuide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the guide */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Guide"];
                };
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
        };
    };
    deleteGuide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    updateGuide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GuidePatch"];
            };
        };
        responses: {
            /** @description the guide as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Guide"];
                };
            };
            400: components["responses"]["Problem"];
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            408: components["responses"]["BodyTimeout"];
            413: components["responses"]["Problem"];
            415: components["responses"]["Problem"];
            422: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    likeGuide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description liked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LikeState"];
                };
            };
            401: components["responses"]["Problem"];
            403: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
    unlikeGuide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description not liked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LikeState"];
                };
            };
            401: components["responses"]["Problem"];
            404: components["responses"]["Problem"];
            429: components["responses"]["RateLimited"];
        };
    };
}
