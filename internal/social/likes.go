package social

import (
	"context"

	"github.com/ouncehq/ounce/db"
)

// LikeState is an article's like count and whether the caller likes it.
type LikeState struct {
	Liked bool
	Count int64
}

// ToggleLike likes the article (id or slug) for the member, or takes their like back. Only
// the caller can be the one who likes: claimedUserID, when sent, must be their own id.
func (s *Service) ToggleLike(ctx context.Context, u db.User, ref, claimedUserID string) (LikeState, error) {
	if err := requireMember(u, "like articles"); err != nil {
		return LikeState{}, err
	}
	return s.likeState(ctx, u, ref, claimedUserID, func(id string) (bool, int64, error) {
		return s.store.ToggleLike(ctx, id, u.ID)
	})
}

// Likes is the article's like count and whether the caller likes it (false for a visitor,
// whose zero User has no likes).
func (s *Service) Likes(ctx context.Context, u db.User, ref, claimedUserID string) (LikeState, error) {
	return s.likeState(ctx, u, ref, claimedUserID, func(id string) (bool, int64, error) {
		n, liked, err := s.store.LikeState(ctx, id, u.ID)
		return liked, n, err
	})
}

// likeState checks the claimed user, finds the article (id or slug) and answers what read
// says of the caller's like and the count on it.
func (s *Service) likeState(ctx context.Context, u db.User, ref, claimedUserID string, read func(id string) (liked bool, count int64, err error)) (LikeState, error) {
	if err := checkClaim(u, claimedUserID); err != nil {
		return LikeState{}, err
	}
	id, err := s.article(ctx, ref)
	if err != nil {
		return LikeState{}, err
	}
	liked, n, err := read(id)
	if err != nil {
		return LikeState{}, articleErr(err)
	}
	return LikeState{Liked: liked, Count: n}, nil
}
