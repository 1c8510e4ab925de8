// The texts `--version` is made of, taken in when this target is compiled (see build_info.c).
#ifndef LIVELOCD_BUILD_INFO_H
#define LIVELOCD_BUILD_INFO_H

/// The first 200 bytes of debian/changelog ("livelocd (0.9.0-1) bookworm; urgency=medium …"),
/// or "" when the file was not there.
const char *livelocd_changelog_head(void);

/// The contents of .build/build-commit ("45a89c8a1b2c\n"), or "" when the file was not there.
const char *livelocd_commit_file(void);

#endif
