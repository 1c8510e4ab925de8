# The release build's flags, one set for `make release` (and so `make run`) and for the package
# (debian/rules): the Swift runtime linked statically (--static-swift-stdlib), so that a device needs
# no Swift libraries, and Debian's hardening for the link, a read-only GOT after start (relro with
# bindnow). The same flags, so that the .build/release one of them built is up to date for the
# other: `make run` after `make deb` (or `make deb` after `make run`) rebuilds nothing.
SWIFT_RELEASE_FLAGS = -c release --static-swift-stdlib -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
