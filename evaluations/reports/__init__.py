"""PDF review reports: the build job, its content and the pages and API that serve it."""
