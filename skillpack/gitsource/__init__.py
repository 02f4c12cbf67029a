"""Skills from git repositories, fetched without running anything from them
(:mod:`.git`): sources parsed and redacted (:mod:`.spec`), the ``GIT`` codes (:mod:`.errors`)."""
