// The package version has one home, debian/changelog; clang's #embed reads its head when this file
// is compiled and lists the file as a dependency, so a new changelog entry rebuilds this file (and
// `swift build` alone knows the version). The commit comes from .build/build-commit, which the
// Makefile rewrites when the commit changes (a build without make: no file, "unknown commit").
#include "build_info.h"

static const char changelog[] = {
#if __has_embed("../../debian/changelog")
#embed "../../debian/changelog" limit(200)
,
#endif
    0
};

static const char commit[] = {
#if __has_embed("../../.build/build-commit")
#embed "../../.build/build-commit" limit(64)
,
#endif
    0
};

const char *livelocd_changelog_head(void) { return changelog; }
const char *livelocd_commit_file(void) { return commit; }
