-- Social features of Stack Signal articles: likes, comments, daily view de-duplication and
-- comment mutes. like_count and comment_count are kept by the triggers at the end, in the same
-- transaction as every change to the rows they count, whoever makes it (the store, or a
-- cascade when an account is deleted), so they always equal what the rows say. view_count is
-- kept by the store beside article_views.

-- One row per member who likes an article; the primary key makes a second like impossible.
CREATE TABLE article_likes (
    article_id TEXT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (article_id, user_id)
);
CREATE INDEX article_likes_user_idx ON article_likes (user_id);

-- Comments are plain text. A deleted comment keeps its row (body emptied) so the per-member
-- daily limit still counts it; hidden and deleted comments are not shown or counted. seq
-- numbers an article's comments in the order they were stored (oldest first, even when two
-- share a timestamp).
CREATE TABLE article_comments (
    id         TEXT PRIMARY KEY,
    article_id TEXT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    hidden     BOOLEAN NOT NULL DEFAULT FALSE,
    deleted_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX article_comments_article_idx ON article_comments (article_id, seq);
CREATE INDEX article_comments_user_idx ON article_comments (user_id, created_at);

-- Who has been counted as a viewer of an article on a UTC day: u:<user id>, k:<key id> or
-- c:<hash of the visitor cookie>. Never an address. Old days are pruned.
CREATE TABLE article_views (
    article_id TEXT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    day        DATE NOT NULL,
    viewer     TEXT NOT NULL,
    PRIMARY KEY (article_id, day, viewer)
);
CREATE INDEX article_views_day_idx ON article_views (day);

-- A client with no identity at all counts at most once per article per minute from one
-- address. The address is kept only as a keyed hash (HMAC-SHA-256), and only for minutes.
CREATE TABLE article_view_guards (
    article_id TEXT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    address    TEXT NOT NULL,
    last_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (article_id, address)
);
CREATE INDEX article_view_guards_last_idx ON article_view_guards (last_at);

-- Members an administrator has stopped from commenting.
CREATE TABLE comment_mutes (
    user_id  BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    muted_at TIMESTAMPTZ NOT NULL
);

-- Counters follow their rows. A comment counts while it is neither hidden nor deleted.
CREATE FUNCTION article_likes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE articles SET like_count = like_count + 1 WHERE id = NEW.article_id;
    ELSE
        UPDATE articles SET like_count = like_count - 1 WHERE id = OLD.article_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER article_likes_count AFTER INSERT OR DELETE ON article_likes
    FOR EACH ROW EXECUTE FUNCTION article_likes_count();

CREATE FUNCTION article_comments_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta BIGINT := 0;
    article TEXT;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        article := OLD.article_id;
        IF NOT OLD.hidden AND OLD.deleted_at IS NULL THEN
            delta := delta - 1;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        article := NEW.article_id;
        IF NOT NEW.hidden AND NEW.deleted_at IS NULL THEN
            delta := delta + 1;
        END IF;
    END IF;
    IF delta <> 0 THEN
        UPDATE articles SET comment_count = comment_count + delta WHERE id = article;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER article_comments_count AFTER INSERT OR UPDATE OF hidden, deleted_at OR DELETE ON article_comments
    FOR EACH ROW EXECUTE FUNCTION article_comments_count();
