// Exercises C++: namespaces, a class template used with two types, overloads, inlining, std::sort, std::map, a lambda.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace geom {

template <typename T>
class Box {
public:
	explicit Box(T w) : w_(w) {}
	T area() const { return w_ * w_; }  // small: inlined at -O2
	__attribute__((noinline)) T grow(int steps)
	{
		for (int i = 0; i < steps; i++)
			w_ = w_ * T(1.0000001) + T(0.5) / (w_ + T(1));
		return area();
	}

private:
	T w_;
};

}  // namespace geom

namespace work {

__attribute__((noinline)) long mix(long x)
{
	for (int i = 0; i < 200; i++)
		x = x * 2862933555777941757L + 3037000493L;
	return x;
}

__attribute__((noinline)) double mix(double x)
{
	for (int i = 0; i < 200; i++)
		x = x * 0.999 + 1.0 / (x + 2.0);
	return x;
}

__attribute__((noinline)) void sort_values(std::vector<int> &v, unsigned seed)
{
	for (auto &e : v) {
		seed = seed * 1103515245u + 12345u;
		e = int(seed >> 8);
	}
	std::sort(v.begin(), v.end(), [](int a, int b) { return (a % 1000) < (b % 1000) || ((a % 1000) == (b % 1000) && a < b); });
}

__attribute__((noinline)) long count_words(int n)
{
	std::map<std::string, int> counts;
	for (int i = 0; i < n; i++)
		counts["w" + std::to_string(i % 500)]++;
	long total = 0;
	for (const auto &kv : counts)
		total += kv.second * long(kv.first.size());
	return total;
}

}  // namespace work

// An optional argument repeats the count_words() phase, so two runs can differ (for --base).
int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::atoi(argv[1]) : 1;
	geom::Box<double> bd(1.0);
	geom::Box<float> bf(1.0f);
	std::vector<int> v(20000);
	double acc = 0;
	long lacc = 0;

	for (int round = 0; round < 150; round++) {
		acc += bd.grow(100000);
		acc += bf.grow(100000);
		for (int i = 0; i < 500; i++) {
			lacc += work::mix(long(i + round));
			acc += work::mix(double(i + round));
		}
		work::sort_values(v, round);
		lacc += v[v.size() / 2];
		for (int r = 0; r < reps; r++)
			lacc += work::count_words(20000);
	}
	std::printf("%g %ld\n", acc, lacc);
	return 0;
}
