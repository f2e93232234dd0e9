// seed.cc - tiny freestanding C++ for the ELF fuzzing harness's seeds: mangled names, templates, inlining (BUILD).
namespace ns {
template <typename T> struct box {
	T v;
	__attribute__((noinline)) T twice() const { return v + v; }
};

__attribute__((noinline)) int apply(int (*f)(int), int x)
{
	return f(x) + 1;
}
}

static inline int square(int x)
{
	return x * x;
}

extern "C" int work(int n)
{
	ns::box<long> b{n};
	auto add = [](int x) { return square(x) + 2; };
	return (int)b.twice() + ns::apply(add, n);
}
