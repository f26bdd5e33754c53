"""Developer tools that sit above the product (they may import ``engine``; ``engine`` never imports them)."""
